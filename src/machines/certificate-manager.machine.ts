/**
 * The kubelet's client certificate manager (Go: client-go util/certificate's manager, started in
 * run() when rotateCertificates is on): renews the client certificate at a jittered 70–90 % of its
 * validity (domain/certificates/rotation.ts) by a new key and CSR, and has the API clients use it.
 *
 * States: `waiting` until the rotation deadline (at once at start when it has passed, an expired
 * certificate included; never sooner than a second after a try), `rotating` while the effect asks
 * for, waits for and installs the new pair, `backingOff` after a failure (2 s doubling to 5 min,
 * for ever: a node whose certificate expired while the API server was away keeps trying, visible
 * here, and does not exit). An issued certificate that is expired or not yet valid when it arrives
 * is a failure too: a signer that issues such certificates must not get a request per turn of the
 * event loop.
 *
 * The `rotateClientCertificate` effect does the I/O: a key, a CSR with the current certificate's
 * credentials, the wait for it (15 minutes, Go's), the new pair in the cert dir's store, and the
 * three API clients reopened on it (their old connections closed, as Go's closeAllConns). It answers
 * with data, never throws: the new validity and a new jitter, or the error.
 * Pure: the deadline is computed from the input and the effect's answers, on the injected clock.
 */
import { assign, fromPromise, setup, type AnyEventObject } from 'xstate';
import { doneOutput } from './done-output.js';
import type { SerializedError } from '../domain/errors.js';
import { rotationDeadlineMs, rotationRetryMs, rotationWaitMs, unusableIssuedCertificate } from '../domain/certificates/rotation.js';

export interface CertificateValidity {
  notBeforeMs: number;
  notAfterMs: number;
  /** When this was read (the clock of the phase or the effect): the deadline's delay is counted from it. */
  observedAtMs: number;
  /** In [0, 1): where between 70 % and 90 % the next rotation falls (drawn by the caller, journaled). */
  jitter: number;
}

/** The serving certificate's names (the node's hostname and addresses); absent for the client certificate. */
export interface ServingNames { dnsNames: string[]; ipAddresses: string[] }

export type CertificateManagerInput = CertificateValidity & { nodeName: string; servingNames?: ServingNames };

export interface RotateCertificateInput {
  nodeName: string;
  servingNames?: ServingNames;
  /** Failed tries since the last success (0: a scheduled rotation). */
  attempt: number;
}

export type CertificateRotation =
  | ({ ok: true; csr: string } & CertificateValidity)
  | { ok: false; error: SerializedError; observedAtMs: number };

export interface CertificateManagerContext {
  nodeName: string;
  servingNames?: ServingNames;
  notBeforeMs: number;
  notAfterMs: number;
  rotateAtMs: number;
  /** From when the wait for `rotateAtMs` is counted. */
  observedAtMs: number;
  rotations: number;
  failures: number;
  lastCsr: string | null;
  lastError: SerializedError | null;
}

export const CERTIFICATE_MANAGER_EFFECTS = ['rotateClientCertificate'] as const;
export const SERVING_CERTIFICATE_MANAGER_EFFECTS = ['rotateServingCertificate'] as const;

const rotation = (event: AnyEventObject) => doneOutput<CertificateRotation>(event);

/** Why the effect's answer is not a usable certificate (its error, or the new one's validity), or null. */
function rotationError(answer: CertificateRotation, what: string): SerializedError | null {
  return answer.ok ? unusableIssuedCertificate(what, answer, answer.observedAtMs) : answer.error;
}

const schedule = (v: CertificateValidity) => ({
  notBeforeMs: v.notBeforeMs,
  notAfterMs: v.notAfterMs,
  rotateAtMs: rotationDeadlineMs(v.notBeforeMs, v.notAfterMs, v.jitter),
  observedAtMs: v.observedAtMs,
});

const notProvided = (name: string) => fromPromise<CertificateRotation, RotateCertificateInput>(async () => {
  throw new Error(`actor ${name} was not provided`);
});

type RotateEffect = (typeof CERTIFICATE_MANAGER_EFFECTS)[number] | (typeof SERVING_CERTIFICATE_MANAGER_EFFECTS)[number];

/**
 * One certificate's manager: the client's and the serving certificate's differ only in their id and
 * the effect they invoke (both effects are declared in each, so one setup types them; each machine
 * invokes and is provided only its own).
 */
function certificateManager(id: string, effect: RotateEffect, what: string) {
  return setup({
    types: { context: {} as CertificateManagerContext, input: {} as CertificateManagerInput },
    actors: { rotateClientCertificate: notProvided('rotateClientCertificate'), rotateServingCertificate: notProvided('rotateServingCertificate') },
    delays: {
      untilRotation: ({ context }) => rotationWaitMs(context.rotateAtMs, context.observedAtMs, context.rotations > 0),
      retryDelay: ({ context }) => rotationRetryMs(context.failures),
    },
    guards: {
      isRotated: ({ event }) => rotationError(rotation(event), what) === null,
    },
  }).createMachine({
    id,
    context: ({ input }) => ({ nodeName: input.nodeName, ...(input.servingNames ? { servingNames: input.servingNames } : {}), ...schedule(input), rotations: 0, failures: 0, lastCsr: null, lastError: null }),
    initial: 'waiting',
    states: {
      waiting: {
        meta: { description: `the ${what} is good: renewing at 70–90 % of its validity` },
        after: { untilRotation: 'rotating' },
      },
      rotating: {
        meta: { description: `a new key and CSR for the ${what}: waiting for it, then it is put to use` },
        invoke: {
          id: effect,
          src: effect,
          input: ({ context }) => ({ nodeName: context.nodeName, ...(context.servingNames ? { servingNames: context.servingNames } : {}), attempt: context.failures }),
          onDone: [
            {
              guard: 'isRotated',
              target: 'waiting',
              actions: assign(({ context, event }) => {
                const r = doneOutput<Extract<CertificateRotation, { ok: true }>>(event);
                return { ...schedule(r), rotations: context.rotations + 1, failures: 0, lastCsr: r.csr, lastError: null };
              }),
            },
            {
              target: 'backingOff',
              actions: assign(({ context, event }) => ({
                failures: context.failures + 1,
                lastError: rotationError(rotation(event), what),
              })),
            },
          ],
          // The effect answers with data; a throw is a bug in it, treated as a failed try.
          onError: {
            target: 'backingOff',
            actions: assign(({ context }) => ({
              failures: context.failures + 1,
              lastError: { code: 'KLT_ERR_INTERNAL', message: `${effect} threw`, retryable: true } satisfies SerializedError,
            })),
          },
        },
      },
      backingOff: {
        meta: { description: 'a renewal failed: trying again after 2 s, doubling up to 5 min' },
        after: { retryDelay: 'rotating' },
      },
    },
  });
}

export const certificateManagerMachine = certificateManager('certificateManager', 'rotateClientCertificate', 'client certificate');
/** serverTLSBootstrap: the kubelet server's certificate, asked for (signer kubernetes.io/kubelet-serving) and renewed the same way. */
export const servingCertificateManagerMachine = certificateManager('servingCertificateManager', 'rotateServingCertificate', 'serving certificate');
