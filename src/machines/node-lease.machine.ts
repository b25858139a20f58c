/**
 * The node lease controller (Go: pkg/kubelet/nodelease, component-helpers lease controller):
 * keeps kube-node-lease/<node> renewed every renew interval (¼ of nodeLeaseDurationSeconds,
 * stretched by wait.JitterUntil's 0.04 factor with the `jitter` input), so the node lifecycle
 * controller sees the node alive.
 *
 * Contract:
 * - It waits in `waitingForNode` until `node.registered` brings the Node's uid, then renews at
 *   once, so the first Lease already has its owner reference. (Go starts the controller before
 *   registration; its first try races the Node and usually lands a whole period late.)
 * - A failed renewal is retried after 100 ms, 200 ms, … up to 7 s, five tries in all; then it
 *   waits for the next period and starts over (Go: retryUpdateLease, backoffEnsureLease).
 * - The `renewLease` effect does the I/O: get or create the lease, update it with the previous
 *   answer's resourceVersion, and on 409 re-get and update once. It answers with data
 *   (`LeaseRenewal`), never throws; `attempt` > 0 tells it to re-open connections first (Go's
 *   onRepeatedHeartbeatFailure).
 * Pure: periods run on the injected clock through `after`.
 */
import { assign, fromPromise, setup, type AnyEventObject } from 'xstate';
import { doneOutput } from './done-output.js';
import type { SerializedError } from '../domain/errors.js';
import type { LeaseObject } from '../domain/node-status/api-objects.js';
import { jitteredMs, retryDelayMs } from '../domain/node-status/backoff.js';
import { DEFAULT_LEASE_DURATION_SECONDS, LEASE_MAX_TRIES, renewIntervalMs } from '../domain/node-status/node-lease.js';

/** Go: wait.JitterUntil(c.sync, c.renewInterval, 0.04, …). */
export const LEASE_JITTER_FACTOR = 0.04;

export interface NodeLeaseMachineInput {
  nodeName: string;
  leaseDurationSeconds?: number;
  /** A number in [0, 1): the jitter for every renew period (drawn by the caller, recorded in the journal). */
  jitter: number;
}

export interface NodeLeaseContext {
  nodeName: string;
  leaseDurationSeconds: number;
  renewPeriodMs: number;
  nodeUid: string | null;
  /** The lease as last written or read; null forces a fresh GET. */
  lease: LeaseObject | null;
  /** Failed tries in the current renewal (0 after a success or when a period starts over). */
  failures: number;
  lastRenewedAtMs: number | null;
  lastError: SerializedError | null;
}

export interface NodeRegisteredEvent { type: 'node.registered'; nodeName: string; uid: string }
export type NodeLeaseEvent = NodeRegisteredEvent;

export interface RenewLeaseInput {
  nodeName: string;
  leaseDurationSeconds: number;
  nodeUid: string | null;
  lease: LeaseObject | null;
  /** 0 for the first try of a renewal; more means earlier tries failed. */
  attempt: number;
}

export type LeaseRenewal =
  | { ok: true; lease: LeaseObject; observedAtMs: number }
  | { ok: false; error: SerializedError; observedAtMs: number };

export const NODE_LEASE_EFFECTS = ['renewLease'] as const;

// Only the renewLease invoke's onDone calls these; the guards tell which answer it was.
const renewal = (event: AnyEventObject) => doneOutput<LeaseRenewal>(event);
const renewed = (event: AnyEventObject) => doneOutput<Extract<LeaseRenewal, { ok: true }>>(event);
const renewalError = (event: AnyEventObject) => doneOutput<Extract<LeaseRenewal, { ok: false }>>(event).error;

export const nodeLeaseMachine = setup({
  types: { context: {} as NodeLeaseContext, events: {} as NodeLeaseEvent, input: {} as NodeLeaseMachineInput },
  actors: {
    renewLease: fromPromise<LeaseRenewal, RenewLeaseInput>(async () => {
      throw new Error('actor renewLease was not provided');
    }),
  },
  delays: {
    renewPeriod: ({ context }) => context.renewPeriodMs,
    retryDelay: ({ context }) => retryDelayMs(context.failures),
  },
  guards: {
    isRenewed: ({ event }) => renewal(event).ok,
    hasTriesLeft: ({ context }) => context.failures + 1 < LEASE_MAX_TRIES,
  },
  actions: {
    recordNode: assign({ nodeUid: ({ event }) => event.uid }),
  },
}).createMachine({
  id: 'nodeLease',
  context: ({ input }) => {
    const leaseDurationSeconds = input.leaseDurationSeconds ?? DEFAULT_LEASE_DURATION_SECONDS;
    return {
      nodeName: input.nodeName,
      leaseDurationSeconds,
      renewPeriodMs: jitteredMs(renewIntervalMs(leaseDurationSeconds), LEASE_JITTER_FACTOR, input.jitter),
      nodeUid: null,
      lease: null,
      failures: 0,
      lastRenewedAtMs: null,
      lastError: null,
    };
  },
  initial: 'waitingForNode',
  on: {
    // A re-created Node has a new uid: the next renewal adds the new owner reference.
    'node.registered': { actions: 'recordNode' },
  },
  states: {
    waitingForNode: {
      meta: { description: 'the Node is not registered yet: a lease without its owner would race it' },
      on: { 'node.registered': { target: 'renewing', actions: 'recordNode' } },
    },
    renewing: {
      meta: { description: 'getting, creating or updating the Lease' },
      invoke: {
        id: 'renewLease',
        src: 'renewLease',
        input: ({ context }) => ({
          nodeName: context.nodeName,
          leaseDurationSeconds: context.leaseDurationSeconds,
          nodeUid: context.nodeUid,
          lease: context.lease,
          attempt: context.failures,
        }),
        onDone: [
          {
            guard: 'isRenewed',
            target: 'waiting',
            actions: assign(({ event }) => {
              const r = renewed(event);
              return { lease: r.lease, failures: 0, lastRenewedAtMs: r.observedAtMs, lastError: null };
            }),
          },
          {
            guard: 'hasTriesLeft',
            target: 'backingOff',
            actions: assign(({ context, event }) => ({
              failures: context.failures + 1,
              lastError: renewalError(event),
            })),
          },
          {
            // Five tries failed: give up until the next period, and read the lease afresh then.
            target: 'waiting',
            actions: assign(({ event }) => ({
              failures: 0,
              lease: null,
              lastError: renewalError(event),
            })),
          },
        ],
        // The effect answers with data; a throw is a bug in it, treated like a failed try.
        onError: {
          target: 'backingOff',
          actions: assign(({ context }) => ({
            failures: Math.min(context.failures + 1, LEASE_MAX_TRIES - 1),
            lastError: { code: 'KLT_ERR_INTERNAL', message: 'renewLease threw', retryable: true } satisfies SerializedError,
          })),
        },
      },
    },
    backingOff: {
      meta: { description: 'a renewal failed: retrying after 100 ms … 7 s' },
      after: { retryDelay: 'renewing' },
    },
    waiting: {
      meta: { description: 'renewed (or out of tries): next renewal after the renew interval' },
      after: { renewPeriod: 'renewing' },
    },
  },
});
