import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, SimulatedClock } from 'xstate';
import { rotationDeadlineMs, rotationRetryMs } from '../../src/domain/certificates/rotation.js';
import { certificateManagerMachine, type CertificateRotation, type RotateCertificateInput } from '../../src/machines/certificate-manager.machine.js';
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
