import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, SimulatedClock } from 'xstate';
import { containerManagerMachine, type ContainerManagerStarted } from '../../src/machines/container-manager.machine.js';
import type { QosCgroupConfigs } from '../../src/domain/cgroups/qos-cgroups.js';
import { KubeletError } from '../../src/domain/errors.js';
import { settle } from '../support/settle.js';

const started: ContainerManagerStarted = { qosCgroups: true, cgroupVersion: 'v1', enforced: ['pods'] };

function start(o: { qosCgroups?: boolean; failStart?: boolean; holdSweeps?: boolean } = {}) {
  const clock = new SimulatedClock();
  const calls: string[] = [];
  const releases: (() => void)[] = [];
  const machine = containerManagerMachine.provide({
    actors: {
      startContainerManager: fromPromise(async () => {
        calls.push('start');
        if (o.failStart) throw new KubeletError('KLT_ERR_CGROUP', 'failed to create cgroup "/kubepods": EROFS');
        return started;
      }),
      updateQosCgroups: fromPromise<QosCgroupConfigs | null>(async () => {
        calls.push('updateQos');
        return null;
      }),
      cleanupPodCgroups: fromPromise(async ({ input }) => {
        calls.push(`cleanup ${input.keep.join(',')}`);
        if (o.holdSweeps) await new Promise<void>((r) => releases.push(r));
        return { removed: [] };
      }),
    },
  });
  const actor = createActor(machine, { clock, input: { qosCgroups: o.qosCgroups ?? true, qosUpdatePeriodMs: 60_000 } });
  actor.start();
  return { actor, clock, calls, releases };
}

const runtimeUp = { type: 'runtime.up' } as const;

describe('containerManagerMachine', () => {
  it('waits for the runtime, then starts once it is first up', async () => {
    const { actor, calls } = start();
    expect(actor.getSnapshot().value).toBe('waitingForRuntime');
    actor.send(runtimeUp);
    await settle();
    expect(calls).toEqual(['start']);
    expect(actor.getSnapshot().matches({ running: 'idle' })).toBe(true);
    expect(actor.getSnapshot().context.started).toEqual(started);
    // The runtime says it once; a repeat would not start it again.
    actor.send(runtimeUp);
    await settle();
    expect(calls).toEqual(['start']);
  });

  it('stays in failed with the error when the start fails', async () => {
    const { actor } = start({ failStart: true });
    actor.send(runtimeUp);
    await settle();
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context.lastError).toMatchObject({ code: 'KLT_ERR_CGROUP' });
  });

  it('updates the QoS cgroups every period on the injected clock, and not at all without cgroupsPerQOS', async () => {
    const on = start();
    on.actor.send(runtimeUp);
    await settle();
    on.clock.increment(60_000);
    await settle();
    expect(on.calls).toEqual(['start', 'updateQos']);

    const off = start({ qosCgroups: false });
    off.actor.send(runtimeUp);
    await settle();
    off.clock.increment(120_000);
    await settle();
    expect(off.calls).toEqual(['start']);
  });

  it('sweeps pod cgroups when told which pods may run, keeping a request that came before the start', async () => {
    const { actor, calls } = start();
    actor.send({ type: 'cgroups.pods.running', podUids: ['b', 'a'] });
    actor.send(runtimeUp);
    await settle();
    expect(calls).toEqual(['start', 'cleanup a,b']);
    expect(actor.getSnapshot().context.lastSweep).toEqual({ removed: [] });
  });

  it('runs the latest request that arrived during a sweep after it', async () => {
    const { actor, calls, releases } = start({ holdSweeps: true });
    actor.send(runtimeUp);
    await settle();
    actor.send({ type: 'cgroups.pods.running', podUids: ['a'] });
    await settle();
    actor.send({ type: 'cgroups.pods.running', podUids: ['a', 'b'] });
    actor.send({ type: 'cgroups.pods.running', podUids: ['c'] });
    releases.shift()!();
    await settle();
    expect(calls).toEqual(['start', 'cleanup a', 'cleanup c']);
  });
});
