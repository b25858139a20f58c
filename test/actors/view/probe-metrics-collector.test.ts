import { describe, expect, it } from 'vitest';
import { createActor, enqueueActions, fromPromise, setup, SimulatedClock } from 'xstate';
import { createInspectionTap } from '../../../src/actors/journal/inspection-tap.js';
import { ProbeMetricsCollector } from '../../../src/actors/view/probe-metrics-collector.js';
import type { ProbeOutcome } from '../../../src/domain/probe/types.js';
import { probeMachine, type ProbeInput, type RunProbeInput } from '../../../src/machines/probe.machine.js';
import { settle } from '../../support/settle.js';

const flush = () => settle();

/**
 * A real probe worker under a parent that spawns and stops it as the syncLoop does, its runProbe
 * answered by the test: each attempt waits until `finish` settles it.
 */
function harness(probe: ProbeInput['probe'] = 'readiness') {
  const clock = new SimulatedClock();
  const pending: Array<(o: ProbeOutcome | Error) => void> = [];
  const runProbe = fromPromise<ProbeOutcome, RunProbeInput>(() => new Promise((resolve, reject) => {
    pending.push((o) => (o instanceof Error ? reject(o) : resolve(o)));
  }));
  const worker = probeMachine.provide({ actors: { runProbe } });
  const id = `probe:uid-1:app:${probe}`;
  const parent = setup({ actors: { probe: worker } }).createMachine({
    on: {
      spawn: {
        actions: enqueueActions(({ enqueue }) => enqueue.spawnChild('probe', {
          id, systemId: id,
          input: {
            podUid: 'uid-1', podIP: '127.0.0.1', containerId: 'c1', containerStartedAtMs: 0, probe,
            container: { name: 'app', image: 'busybox', [`${probe}Probe`]: { exec: { command: ['true'] }, periodSeconds: 1 } },
          },
        })),
      },
      stop: { actions: enqueueActions(({ enqueue }) => enqueue.stopChild(id)) },
      terminating: { actions: enqueueActions(({ enqueue }) => enqueue.sendTo(id, { type: 'probe.pod.terminating' })) },
    },
  });
  const tap = createInspectionTap({ clock, onRecord: () => {} });
  const collector = new ProbeMetricsCollector(clock, tap.stableId, (uid) => (uid === 'uid-1' ? { namespace: 'prod', name: 'web' } : undefined), 1_700_000_000_000);
  const actor = createActor(parent, { clock, inspect: collector.inspect });
  actor.start();
  return {
    clock, collector, actor,
    /** Settles the running attempt after `ms` of simulated time, then lets the worker take it in. */
    finish: async (outcome: ProbeOutcome | Error, ms: number) => {
      await flush();
      clock.increment(ms);
      const settle = pending.shift();
      expect(settle, 'a probe attempt is running').toBeDefined();
      settle!(outcome);
      await flush();
    },
    /** Simulated time to the next attempt (periodSeconds: 1). */
    nextPeriod: async () => {
      await flush();
      clock.increment(1000);
      await flush();
    },
    series: () => collector.snapshot().series,
  };
}

describe('ProbeMetricsCollector', () => {
  it('counts each attempt by result and times the successful and unknown ones, as Go', async () => {
    const h = harness();
    h.actor.send({ type: 'spawn' });
    await h.finish({ result: 'success' }, 30);
    expect(h.series()).toEqual([expect.objectContaining({
      probeType: 'Readiness', container: 'app', pod: 'web', namespace: 'prod', podUid: 'uid-1', results: { successful: 1 },
    })]);
    expect(h.series()[0]!.durations).toMatchObject({ count: 1, sumSeconds: 0.03 });

    await h.nextPeriod();
    await h.finish({ result: 'failure', output: 'exit 1' }, 10);
    await h.nextPeriod();
    await h.finish({ result: 'unknown' }, 200);
    expect(h.series()[0]!.results).toEqual({ successful: 1, failed: 1, unknown: 1 });
    // The failure was not timed: two observations, 30 ms and 200 ms.
    expect(h.series()[0]!.durations).toMatchObject({ count: 2, sumSeconds: 0.23 });
  });

  it('does not count an attempt whose prober threw (Go throws prober errors away)', async () => {
    const h = harness();
    h.actor.send({ type: 'spawn' });
    await h.finish(new Error('prober exploded'), 5);
    await h.nextPeriod();
    await h.finish({ result: 'success' }, 5);
    expect(h.series()[0]!.results).toEqual({ successful: 1 });
    expect(h.series()[0]!.durations?.count).toBe(1);
  });

  it('drops a worker\'s series when the worker is stopped with its pod', async () => {
    const h = harness();
    h.actor.send({ type: 'spawn' });
    await h.finish({ result: 'success' }, 1);
    expect(h.series()).toHaveLength(1);
    h.actor.send({ type: 'stop' });
    expect(h.series()).toEqual([]);
  });

  it('drops a liveness worker\'s series when the pod terminates and the worker stops', async () => {
    const h = harness('liveness');
    h.actor.send({ type: 'spawn' });
    await h.finish({ result: 'success' }, 1);
    expect(h.series().map((s) => s.probeType)).toEqual(['Liveness']);
    h.actor.send({ type: 'terminating' });
    expect(h.series()).toEqual([]);
  });

  it('reports the process start time in seconds', () => {
    expect(harness().collector.snapshot().processStartSeconds).toBe(1_700_000_000);
  });
});
