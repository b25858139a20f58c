import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, SimulatedClock } from 'xstate';
import { rotationDeadlineMs, rotationRetryMs } from '../../src/domain/certificates/rotation.js';
import {
  certificateManagerMachine, servingCertificateManagerMachine, type CertificateRotation, type RotateCertificateInput,
} from '../../src/machines/certificate-manager.machine.js';
import { settle } from '../support/settle.js';

async function tick(clock: SimulatedClock, ms: number) {
  clock.increment(ms);
  await settle();
}

const HOUR = 3600_000;

/** A rotation effect answering from a script (true = a new certificate valid an hour from now); records each call's time. */
function start(script: boolean[], validity = { notBeforeMs: 0, notAfterMs: 10 * HOUR }, jitter = 0) {
  const clock = new SimulatedClock();
  const calls: { atMs: number; input: RotateCertificateInput }[] = [];
  const machine = certificateManagerMachine.provide({
    actors: {
      rotateClientCertificate: fromPromise<CertificateRotation, RotateCertificateInput>(async ({ input }) => {
        const ok = script[Math.min(calls.length, script.length - 1)]!;
        calls.push({ atMs: clock.now(), input });
        const now = clock.now();
        return ok
          ? { ok: true, csr: `csr-${calls.length}`, notBeforeMs: now, notAfterMs: now + HOUR, observedAtMs: now, jitter: 0.5 }
          : { ok: false, error: { code: 'KLT_ERR_API_UNAVAILABLE', message: 'connect ECONNREFUSED', retryable: true }, observedAtMs: now };
      }),
    },
  });
  const actor = createActor(machine, { clock, input: { nodeName: 'n1', ...validity, observedAtMs: 0, jitter } });
  actor.start();
  return { actor, clock, calls };
}

describe('the rotation deadline', () => {
  it('falls between 70 % and 90 % of the validity, counted from notBefore', () => {
    expect(rotationDeadlineMs(1000, 11_000, 0)).toBe(8000);
    expect(rotationDeadlineMs(1000, 11_000, 0.5)).toBe(9000);
    expect(rotationDeadlineMs(1000, 11_000, 0.999)).toBeCloseTo(9998, 0);
  });
  it('backs off 2 s, 4 s, 8 s … up to 5 minutes', () => {
    expect([1, 2, 3, 4].map(rotationRetryMs)).toEqual([2000, 4000, 8000, 16_000]);
    expect(rotationRetryMs(20)).toBe(300_000);
  });
});

describe('certificateManagerMachine', () => {
  it('waits until 70 % of a 10 h certificate (jitter 0), rotates, then schedules from the new one (jitter 0.5: 80 % of an hour)', async () => {
    const { actor, clock, calls } = start([true]);
    await tick(clock, 7 * HOUR - 1);
    expect(calls).toHaveLength(0);
    expect(actor.getSnapshot().matches('waiting')).toBe(true);
    await tick(clock, 1);
    expect(calls).toEqual([{ atMs: 7 * HOUR, input: { nodeName: 'n1', attempt: 0 } }]);
    expect(actor.getSnapshot().context).toMatchObject({ rotations: 1, lastCsr: 'csr-1', notAfterMs: 8 * HOUR });
    await tick(clock, 0.8 * HOUR - 1);
    expect(calls).toHaveLength(1);
    await tick(clock, 1);
    expect(calls).toHaveLength(2);
  });

  it('rotates at once when the deadline has passed (an expired certificate included)', async () => {
    const { calls, clock } = start([true], { notBeforeMs: -10 * HOUR, notAfterMs: -HOUR });
    await tick(clock, 0);
    expect(calls.map((c) => c.atMs)).toEqual([0]);
  });

  it('a failed rotation backs off in a state of its own with the error, and keeps trying until one succeeds', async () => {
    const { actor, clock, calls } = start([false, false, false, true], { notBeforeMs: -HOUR, notAfterMs: 0 });
    await tick(clock, 0);
    expect(actor.getSnapshot().matches('backingOff')).toBe(true);
    expect(actor.getSnapshot().context.lastError?.message).toBe('connect ECONNREFUSED');
    await tick(clock, 2000);
    await tick(clock, 4000);
    await tick(clock, 8000);
    expect(calls.map((c) => [c.atMs, c.input.attempt])).toEqual([[0, 0], [2000, 1], [6000, 2], [14_000, 3]]);
    expect(actor.getSnapshot().matches('waiting')).toBe(true);
    expect(actor.getSnapshot().context).toMatchObject({ failures: 0, lastError: null, rotations: 1 });
  });
});

/** What a fake signer issues, relative to the moment it answers. */
type Issued = 'ok' | 'expired' | 'notYetValid' | 'shortLived' | 'refused';

const MANAGERS = [
  { name: 'certificateManagerMachine', machine: certificateManagerMachine, effect: 'rotateClientCertificate', what: 'client certificate' },
  { name: 'servingCertificateManagerMachine', machine: servingCertificateManagerMachine, effect: 'rotateServingCertificate', what: 'serving certificate' },
] as const;

/**
 * A manager whose effect asks a fake signer: the script's answers in order, the last one for ever.
 * The signer stops answering after 1,000 requests, so a manager that loops without a delay ends
 * the test with a count instead of hanging it.
 */
function startWithSigner(manager: (typeof MANAGERS)[number], script: Issued[]) {
  const clock = new SimulatedClock();
  const csrs: number[] = [];
  const signer = fromPromise<CertificateRotation, RotateCertificateInput>(async () => {
    if (csrs.length >= 1000) return new Promise<never>(() => {});
    const issued = script[Math.min(csrs.length, script.length - 1)]!;
    csrs.push(clock.now());
    const now = clock.now();
    const answer = (notBeforeMs: number, notAfterMs: number): CertificateRotation => ({ ok: true, csr: `csr-${csrs.length}`, notBeforeMs, notAfterMs, observedAtMs: now, jitter: 0.5 });
    switch (issued) {
      case 'ok': return answer(now, now + HOUR);
      case 'expired': return answer(now - 2 * HOUR, now - HOUR);
      case 'notYetValid': return answer(now + HOUR, now + 2 * HOUR);
      // Valid now, but its rotation deadline (80 % of 500 ms) is already behind the moment it arrives.
      case 'shortLived': return answer(now - 450, now + 50);
      case 'refused': return { ok: false, error: { code: 'KLT_ERR_API_UNAVAILABLE', message: 'connect ECONNREFUSED', retryable: true }, observedAtMs: now };
    }
  });
  const machine = manager.machine.provide({ actors: { [manager.effect]: signer } });
  const actor = createActor(machine, { clock, input: { nodeName: 'n1', notBeforeMs: -10 * HOUR, notAfterMs: -HOUR, observedAtMs: 0, jitter: 0 } });
  actor.start();
  return { actor, clock, csrs };
}

/** The simulated seconds [0, 20): the first try (due at once), then 100 ms at a time (settling after each step so answers land). */
async function run20s(clock: SimulatedClock) {
  await tick(clock, 0);
  for (let t = 0; t < 199; t++) await tick(clock, 100);
  await tick(clock, 99);
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe.each(MANAGERS)('$name against a signer that issues unusable certificates', (manager) => {
  it('an already expired certificate is a failed rotation: backs off, at most one CSR a second', async () => {
    const { actor, clock, csrs } = startWithSigner(manager, ['expired']);
    await run20s(clock);
    expect(csrs.length).toBeLessThanOrEqual(20);
    expect(csrs).toEqual([0, 2000, 6000, 14_000]);
    const { context } = actor.getSnapshot();
    expect(actor.getSnapshot().matches('backingOff')).toBe(true);
    expect(context).toMatchObject({ rotations: 0, failures: 4, lastCsr: null });
    expect(context.lastError).toEqual({
      code: 'KLT_ERR_BOOTSTRAP',
      retryable: true,
      message: `the issued ${manager.what} cannot be used: x509: certificate has expired or is not yet valid: current time ${iso(14_000)} is after ${iso(14_000 - HOUR)}`,
    });
    // The certificate in use is still the one the manager started with.
    expect(context.notAfterMs).toBe(-HOUR);
  });

  it('a certificate not yet valid is a failed rotation too', async () => {
    const { actor, clock, csrs } = startWithSigner(manager, ['notYetValid']);
    await run20s(clock);
    expect(csrs).toEqual([0, 2000, 6000, 14_000]);
    expect(actor.getSnapshot().context.lastError?.message).toBe(
      `the issued ${manager.what} cannot be used: x509: certificate has expired or is not yet valid: current time ${iso(14_000)} is before ${iso(14_000 + HOUR)}`,
    );
  });

  it('a usable certificate whose rotation deadline has already passed is renewed at most once a second', async () => {
    const { actor, clock, csrs } = startWithSigner(manager, ['shortLived']);
    await run20s(clock);
    expect(csrs.length).toBeLessThanOrEqual(20);
    expect(csrs.slice(0, 3)).toEqual([0, 1000, 2000]);
    expect(actor.getSnapshot().context).toMatchObject({ failures: 0, lastError: null });
  });

  it('the back-off starts again at 2 s after a success', async () => {
    const { actor, clock, csrs } = startWithSigner(manager, ['expired', 'expired', 'ok', 'refused']);
    await run20s(clock);
    // Fails at 0 and 2 s, succeeds at 6 s; the next renewal is at 80 % of its hour.
    expect(csrs).toEqual([0, 2000, 6000]);
    expect(actor.getSnapshot().context).toMatchObject({ rotations: 1, failures: 0, lastError: null, lastCsr: 'csr-3' });
    await tick(clock, 6000 + 0.8 * HOUR - clock.now());
    expect(csrs.at(-1)).toBe(6000 + 0.8 * HOUR);
    await tick(clock, 1999);
    expect(csrs).toHaveLength(4);
    await tick(clock, 1);
    expect(csrs).toHaveLength(5);
    expect(csrs.at(-1)! - csrs.at(-2)!).toBe(2000);
  });
});
