import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, SimulatedClock, type SnapshotFrom } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import type { LeaseObject } from '../../src/domain/node-status/api-objects.js';
import { LEASE_MAX_TRIES } from '../../src/domain/node-status/node-lease.js';
import { nodeLeaseMachine, type LeaseRenewal, type RenewLeaseInput } from '../../src/machines/node-lease.machine.js';
import { settle } from '../support/settle.js';

async function tick(clock: SimulatedClock, ms: number) {
  clock.increment(ms);
  await settle();
}

/** A renewLease effect answering from a script (true = success); records every call with its time. */
function start(script: boolean[], jitter = 0) {
  const clock = new SimulatedClock();
  const calls: { atMs: number; input: RenewLeaseInput }[] = [];
  const machine = nodeLeaseMachine.provide({
    actors: {
      renewLease: fromPromise<LeaseRenewal, RenewLeaseInput>(async ({ input }) => {
        const ok = script[Math.min(calls.length, script.length - 1)]!;
        calls.push({ atMs: clock.now(), input });
        const lease: LeaseObject = { metadata: { name: input.nodeName, resourceVersion: String(calls.length) }, spec: {} };
        return ok
          ? { ok: true, lease, observedAtMs: clock.now() }
          : { ok: false, error: { code: 'KLT_ERR_API_UNAVAILABLE', message: 'connect ECONNREFUSED', retryable: true }, observedAtMs: clock.now() };
      }),
    },
  });
  const actor = createActor(machine, { clock, input: { nodeName: 'n1', jitter } });
  actor.start();
  return { actor, clock, calls };
}

describe('nodeLeaseMachine', () => {
  it('waits for the Node before the first renewal, then renews at once with its uid', async () => {
    const { actor, clock, calls } = start([true]);
    await tick(clock, 60_000);
    expect(calls).toHaveLength(0);
    expect(actor.getSnapshot().matches('waitingForNode')).toBe(true);
    actor.send({ type: 'node.registered', nodeName: 'n1', uid: 'uid-1' });
    await settle();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.input).toMatchObject({ nodeUid: 'uid-1', leaseDurationSeconds: 40, lease: null, attempt: 0 });
    expect(actor.getSnapshot().matches('waiting')).toBe(true);
  });

  it('renews every 10 s (a quarter of 40 s) and passes the last lease on', async () => {
    const { actor, clock, calls } = start([true]);
    actor.send({ type: 'node.registered', nodeName: 'n1', uid: 'uid-1' });
    await settle();
    await tick(clock, 9_999);
    expect(calls).toHaveLength(1);
    await tick(clock, 1);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.input.lease?.metadata.resourceVersion).toBe('1');
    await tick(clock, 10_000);
    expect(calls.map((c) => c.atMs)).toEqual([0, 10_000, 20_000]);
  });

  it('stretches the period by at most 4 % with the jitter input', async () => {
    const { actor, clock, calls } = start([true], 0.5);
    actor.send({ type: 'node.registered', nodeName: 'n1', uid: 'uid-1' });
    await settle();
    await tick(clock, 10_199);
    expect(calls).toHaveLength(1);
    await tick(clock, 1);
    expect(calls).toHaveLength(2);
  });

  it('retries after 100, 200, 400, 800 ms, five tries in all, then waits for the next period', async () => {
    const { actor, clock, calls } = start([false]);
    actor.send({ type: 'node.registered', nodeName: 'n1', uid: 'uid-1' });
    await settle();
    for (const step of [100, 200, 400, 800]) await tick(clock, step);
    expect(calls.map((c) => c.atMs)).toEqual([0, 100, 300, 700, 1_500]);
    expect(calls.map((c) => c.input.attempt)).toEqual([0, 1, 2, 3, 4]);
    expect(actor.getSnapshot().matches('waiting')).toBe(true);
    expect(actor.getSnapshot().context.lastError?.code).toBe('KLT_ERR_API_UNAVAILABLE');
    await tick(clock, 9_999);
    expect(calls).toHaveLength(5);
    await tick(clock, 1);
    expect(calls).toHaveLength(6);
    expect(calls[5]!.input).toMatchObject({ attempt: 0, lease: null });
  });

  it('resumes renewing after an outage once the API server answers again', async () => {
    const { actor, clock, calls } = start([true, false, false, true]);
    actor.send({ type: 'node.registered', nodeName: 'n1', uid: 'uid-1' });
    await settle();
    await tick(clock, 10_000);
    await tick(clock, 100);
    await tick(clock, 200);
    expect(calls.map((c) => c.atMs)).toEqual([0, 10_000, 10_100, 10_300]);
    expect(actor.getSnapshot().matches('waiting')).toBe(true);
    expect(actor.getSnapshot().context.failures).toBe(0);
    expect(actor.getSnapshot().context.lastRenewedAtMs).toBe(10_300);
  });

  it('takes a new uid from a later node.registered for the next renewal', async () => {
    const { actor, clock, calls } = start([true]);
    actor.send({ type: 'node.registered', nodeName: 'n1', uid: 'uid-1' });
    await settle();
    actor.send({ type: 'node.registered', nodeName: 'n1', uid: 'uid-2' });
    await tick(clock, 10_000);
    expect(calls[1]!.input.nodeUid).toBe('uid-2');
  });
});

describe('nodeLeaseMachine, every reachable state', () => {
  // The machine's logic traversed with every answer its effect and timers can give.
  const events = [
    { type: 'node.registered', nodeName: 'n1', uid: 'u' },
    { type: 'xstate.done.actor.renewLease', output: { ok: true, lease: { metadata: {}, spec: {} }, observedAtMs: 0 } },
    { type: 'xstate.done.actor.renewLease', output: { ok: false, error: { code: 'KLT_ERR_API_UNAVAILABLE', message: 'x', retryable: true }, observedAtMs: 0 } },
    { type: 'xstate.error.actor.renewLease', error: new Error('bug') },
    { type: 'xstate.after.renewPeriod.nodeLease.waiting' },
    { type: 'xstate.after.retryDelay.nodeLease.backingOff' },
  ];
  const paths = getShortestPaths(nodeLeaseMachine, {
    events: events as never,
    input: { nodeName: 'n1', jitter: 0 },
    serializeState: (st: SnapshotFrom<typeof nodeLeaseMachine>) => JSON.stringify([st.value, st.context.failures, st.context.nodeUid, st.context.lease !== null]),
  } as never);

  it('reaches every state', () => {
    expect(new Set(paths.map((p) => p.state.value))).toEqual(new Set(['waitingForNode', 'renewing', 'backingOff', 'waiting']));
  });

  it('never renews before the Node is registered', () => {
    for (const p of paths.filter((x) => x.state.value === 'renewing')) {
      expect(p.steps.map((st) => st.event.type)).toContain('node.registered');
    }
  });

  it('never counts more failures than its tries allow', () => {
    const most = Math.max(...paths.map((p) => p.state.context.failures as number));
    expect(most).toBe(LEASE_MAX_TRIES - 1);
    for (const p of paths.filter((x) => x.state.value === 'waiting')) expect(p.state.context.failures).toBe(0);
  });
});
