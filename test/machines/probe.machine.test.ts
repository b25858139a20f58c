import { describe, expect, it } from 'vitest';
import { assign, createActor, fromPromise, setup, SimulatedClock, type AnyActorRef } from 'xstate';
import type { Container, Probe } from '../../src/domain/pod/types.js';
import type { ProbeOutcome } from '../../src/domain/probe/types.js';
import {
  PROBE_EFFECTS,
  probeMachine,
  type ProbeEvent,
  type ProbeInput,
  type ProbeResultChangedEvent,
  type RunProbeInput,
} from '../../src/machines/probe.machine.js';
import { settle } from '../support/settle.js';

type Attempt = ProbeOutcome['result'] | 'throw';

interface Harness {
  clock: SimulatedClock;
  /** Simulated time of every runProbe call, with its input. */
  calls: { atMs: number; input: RunProbeInput }[];
  /** Every probe.result.changed the parent received, with the simulated time. */
  changes: (ProbeResultChangedEvent & { atMs: number })[];
  worker: () => AnyActorRef;
  send: (event: ProbeEvent) => Promise<void>;
  /** Moves simulated time forward second by second, letting probe promises settle in between. */
  advance: (ms: number) => Promise<void>;
  state: () => unknown;
  context: () => Record<string, unknown>;
  parent: AnyActorRef;
}

const flush = () => settle();

/** Runs the worker under a parent that records its events; runProbe answers from `script` (then `rest`). */
async function start(
  /** stamped: outcomes carry the time their attempt ended (250 ms after it began), as the probe actor stamps them. */
  overrides: Partial<ProbeInput> & { probeSpec?: Probe; stamped?: true },
  script: Attempt[] = [],
  rest: Attempt = 'success',
): Promise<Harness> {
  const clock = new SimulatedClock();
  const calls: Harness['calls'] = [];
  const changes: Harness['changes'] = [];
  const queue = [...script];
  const runProbe = fromPromise<ProbeOutcome, RunProbeInput>(async ({ input }) => {
    calls.push({ atMs: clock.now(), input });
    const next = queue.shift() ?? rest;
    if (next === 'throw') throw new Error('prober exploded');
    return { result: next, output: `attempt ${calls.length}`, ...(overrides.stamped ? { observedAtMs: clock.now() + 250 } : {}) };
  });
  const kind = overrides.probe ?? 'liveness';
  const spec = overrides.probeSpec ?? { exec: { command: ['true'] }, periodSeconds: 10 };
  const container: Container = overrides.container ?? {
    name: 'app',
    image: 'busybox',
    [`${kind}Probe`]: spec,
  };
  const input: ProbeInput = {
    podUid: 'uid-1',
    podIP: '10.1.1.1',
    containerId: 'c1',
    containerStartedAtMs: 0,
    probe: kind,
    container,
    ...overrides,
  };
  const parentMachine = setup({
    types: { context: {} as { n: number }, events: {} as ProbeResultChangedEvent },
    actors: { worker: probeMachine.provide({ actors: { runProbe } }) },
  }).createMachine({
    context: { n: 0 },
    invoke: { id: 'worker', src: 'worker', input },
    on: {
      'probe.result.changed': {
        actions: [
          ({ event }) => changes.push({ ...event, atMs: clock.now() }),
          assign({ n: ({ context }) => context.n + 1 }),
        ],
      },
    },
  });
  const parent = createActor(parentMachine, { clock });
  parent.start();
  await flush();
  const worker = () => parent.getSnapshot().children['worker'] as AnyActorRef;
  return {
    clock,
    calls,
    changes,
    parent,
    worker,
    send: async (event) => {
      worker().send(event);
      await flush();
    },
    advance: async (ms) => {
      for (let left = ms; left > 0; left -= 1000) {
        clock.increment(Math.min(1000, left));
        await flush();
      }
    },
    state: () => worker().getSnapshot().value,
    context: () => worker().getSnapshot().context,
  };
}

const times = (h: Harness) => h.calls.map((c) => c.atMs);
const results = (h: Harness) => h.changes.map((c) => c.result);

describe('probeMachine', () => {
  it('declares runProbe as its only effect', () => {
    expect(PROBE_EFFECTS).toEqual(['runProbe']);
  });

  it('waits out the initial delay, then probes every period', async () => {
    const h = await start({ probeSpec: { exec: { command: ['true'] }, initialDelaySeconds: 5, periodSeconds: 10 } });
    expect(h.state()).toBe('initialDelay');
    await h.advance(4000);
    expect(h.calls).toHaveLength(0);
    await h.advance(1000);
    expect(times(h)).toEqual([5000]);
    await h.advance(30_000);
    expect(times(h)).toEqual([5000, 15_000, 25_000, 35_000]);
    expect(h.state()).toBe('waiting');
    expect(h.changes).toEqual([]);
  });

  it('probes at once when there is no initial delay', async () => {
    const h = await start({ probeSpec: { exec: { command: ['true'] }, periodSeconds: 3 } });
    expect(times(h)).toEqual([0]);
    await h.advance(6000);
    expect(times(h)).toEqual([0, 3000, 6000]);
  });

  it('counts the initial delay from the container start, not from the spawn', async () => {
    const h = await start({
      probeSpec: { exec: { command: ['true'] }, initialDelaySeconds: 5 },
      containerStartedAtMs: 1000,
      observedAtMs: 4000,
    });
    await h.advance(1000);
    expect(h.calls).toHaveLength(0);
    await h.advance(1000);
    expect(times(h)).toEqual([2000]);
  });

  it('uses the API defaults when the probe gives none (period 10 s, failure threshold 3)', async () => {
    const h = await start({ probeSpec: { tcpSocket: { port: 80 } } }, [], 'failure');
    await h.advance(20_000);
    expect(times(h)).toEqual([0, 10_000, 20_000]);
    expect(h.changes).toMatchObject([{ result: 'failure', atMs: 20_000 }]);
    expect(h.calls[0]?.input).toEqual({
      probe: 'liveness',
      target: { kind: 'tcpSocket', host: '10.1.1.1', port: 80, timeoutSeconds: 1 },
    });
  });

  it('stamps a verdict change with the time its attempt ended, so the pod\'s Ready condition moves then', async () => {
    const h = await start(
      { probe: 'readiness', stamped: true, containerStartedAtMs: 0, probeSpec: { httpGet: { port: 80 }, initialDelaySeconds: 15, periodSeconds: 10 } },
      ['success'],
    );
    await h.advance(20_000);
    expect(times(h)).toEqual([15_000]);
    expect(h.changes).toMatchObject([{ result: 'success', observedAtMs: 15_250 }]);
  });

  it('reports one liveness failure after failureThreshold failures in a row, then holds', async () => {
    const h = await start(
      { probeSpec: { exec: { command: ['check'] }, periodSeconds: 1, failureThreshold: 3 } },
      ['failure', 'failure', 'success', 'failure', 'failure', 'failure'],
    );
    await h.advance(10_000);
    expect(h.calls).toHaveLength(6);
    expect(h.changes).toEqual([
      {
        type: 'probe.result.changed',
        podUid: 'uid-1',
        container: 'app',
        containerId: 'c1',
        probe: 'liveness',
        result: 'failure',
        output: 'attempt 6',
        atMs: 5000,
      },
    ]);
    expect(h.state()).toBe('onHold');
    expect(h.calls[0]?.input.target).toEqual({ kind: 'exec', containerId: 'c1', command: ['check'], timeoutSeconds: 1 });
  });

  it('starts readiness as failing and flips it after successThreshold successes, and back after failures', async () => {
    const h = await start(
      { probe: 'readiness', probeSpec: { httpGet: { port: 8080 }, periodSeconds: 2, successThreshold: 2, failureThreshold: 2 } },
      ['success', 'failure', 'success', 'success', 'failure', 'failure', 'success', 'success'],
    );
    await h.advance(14_000);
    expect(h.calls).toHaveLength(8);
    expect(h.changes.map((c) => [c.result, c.atMs])).toEqual([
      ['success', 6000],
      ['failure', 10_000],
      ['success', 14_000],
    ]);
    // Readiness never holds: it keeps probing.
    expect(h.state()).toBe('waiting');
  });

  it('discards attempts that could not run or whose actor failed', async () => {
    const h = await start(
      { probeSpec: { exec: { command: ['check'] }, periodSeconds: 1, failureThreshold: 2 } },
      ['failure', 'unknown', 'throw', 'failure'],
    );
    await h.advance(3000);
    expect(h.calls).toHaveLength(4);
    expect(h.changes.map((c) => [c.result, c.atMs])).toEqual([['failure', 3000]]);
  });

  it('keeps a failed actor as the last outcome and goes on probing', async () => {
    const h = await start({ probeSpec: { exec: { command: ['check'] }, periodSeconds: 1 } }, ['throw']);
    expect(h.state()).toBe('waiting');
    expect(h.context()['lastOutcome']).toEqual({ result: 'unknown', output: 'prober exploded' });
    await h.advance(1000);
    expect(h.calls).toHaveLength(2);
  });

  it('holds liveness and readiness until the startup probe has succeeded', async () => {
    const container: Container = {
      name: 'app',
      image: 'busybox',
      startupProbe: { exec: { command: ['started'] } },
      readinessProbe: { exec: { command: ['ready'] }, periodSeconds: 5, initialDelaySeconds: 2 },
    };
    const h = await start({ probe: 'readiness', container });
    await h.advance(20_000);
    expect(h.state()).toBe('awaitingStartup');
    expect(h.calls).toHaveLength(0);
    await h.send({ type: 'probe.startup.succeeded', containerId: 'c1' });
    expect(times(h)).toEqual([20_000]);
    expect(results(h)).toEqual(['success']);
  });

  it('keeps the gate closed for a startup success that judged another container', async () => {
    const container: Container = {
      name: 'app',
      image: 'busybox',
      startupProbe: { exec: { command: ['started'] } },
      livenessProbe: { exec: { command: ['alive'] }, periodSeconds: 1 },
    };
    const h = await start({ container });
    await h.send({ type: 'probe.container.restarted', containerId: 'c2', containerStartedAtMs: 0 });
    await h.send({ type: 'probe.startup.succeeded', containerId: 'c1' });
    await h.advance(3000);
    expect(h.state()).toBe('awaitingStartup');
    expect(h.calls).toHaveLength(0);
    await h.send({ type: 'probe.startup.succeeded', containerId: 'c2' });
    expect(h.calls.map((c) => c.atMs)).toEqual([3000]);
  });

  it('lifts the startup gate that was lifted during the initial delay as soon as the delay ends', async () => {
    const container: Container = {
      name: 'app',
      image: 'busybox',
      startupProbe: { exec: { command: ['started'] } },
      livenessProbe: { exec: { command: ['alive'] }, initialDelaySeconds: 5 },
    };
    const h = await start({ container });
    await h.send({ type: 'probe.startup.succeeded', containerId: 'c1' });
    await h.advance(5000);
    expect(times(h)).toEqual([5000]);
  });

  it('does not wait for startup when told the container already started', async () => {
    const container: Container = {
      name: 'app',
      image: 'busybox',
      startupProbe: { exec: { command: ['started'] } },
      livenessProbe: { exec: { command: ['alive'] } },
    };
    const h = await start({ container, awaitStartup: false });
    expect(times(h)).toEqual([0]);
  });

  it('reports startup success once and then stops probing', async () => {
    const h = await start(
      { probe: 'startup', probeSpec: { exec: { command: ['started'] }, periodSeconds: 1, failureThreshold: 30 } },
      ['failure', 'failure', 'success'],
    );
    await h.advance(10_000);
    expect(h.calls).toHaveLength(3);
    expect(h.changes.map((c) => [c.probe, c.result, c.atMs])).toEqual([['startup', 'success', 2000]]);
    expect(h.state()).toBe('started');
  });

  it('reports a startup failure after failureThreshold failures and holds', async () => {
    const h = await start({ probe: 'startup', probeSpec: { exec: { command: ['x'] }, periodSeconds: 1, failureThreshold: 2 } }, [], 'failure');
    await h.advance(5000);
    expect(h.calls).toHaveLength(2);
    expect(results(h)).toEqual(['failure']);
    expect(h.state()).toBe('onHold');
  });

  it('starts over with the new container after a liveness failure restarted it', async () => {
    const h = await start(
      { probeSpec: { exec: { command: ['check'] }, periodSeconds: 1, failureThreshold: 1, initialDelaySeconds: 3 } },
      ['failure', 'failure', 'success'],
    );
    await h.advance(3000);
    expect(h.state()).toBe('onHold');
    await h.advance(10_000);
    expect(h.calls).toHaveLength(1);
    await h.send({ type: 'probe.container.restarted', containerId: 'c2', containerStartedAtMs: 13_000 });
    // The new container starts as alive again: the parent hears it, for the new container id.
    expect(h.changes.map((c) => [c.result, c.containerId, c.atMs])).toEqual([
      ['failure', 'c1', 3000],
      ['success', 'c2', 13_000],
    ]);
    expect(h.state()).toBe('initialDelay');
    await h.advance(3000);
    expect(h.calls.map((c) => [c.atMs, c.input.target.kind === 'exec' ? c.input.target.containerId : null])).toEqual([
      [3000, 'c1'],
      [16_000, 'c2'],
    ]);
    expect(h.changes.map((c) => [c.result, c.containerId, c.atMs])).toEqual([
      ['failure', 'c1', 3000],
      ['success', 'c2', 13_000],
      ['failure', 'c2', 16_000],
    ]);
  });

  it('restarts the initial delay when the container restarts during it', async () => {
    const h = await start({ probeSpec: { exec: { command: ['check'] }, initialDelaySeconds: 5 } });
    await h.advance(4000);
    await h.send({ type: 'probe.container.restarted', containerId: 'c2', containerStartedAtMs: 4000 });
    await h.advance(4000);
    expect(h.calls).toHaveLength(0);
    await h.advance(1000);
    expect(times(h)).toEqual([9000]);
    expect(h.changes).toEqual([]);
  });

  it('closes the startup gate again for a restarted container', async () => {
    const container: Container = {
      name: 'app',
      image: 'busybox',
      startupProbe: { exec: { command: ['started'] } },
      livenessProbe: { exec: { command: ['alive'] }, periodSeconds: 1 },
    };
    const h = await start({ container, awaitStartup: false });
    expect(h.calls).toHaveLength(1);
    await h.send({ type: 'probe.container.restarted', containerId: 'c2', containerStartedAtMs: 0 });
    await h.advance(5000);
    expect(h.state()).toBe('awaitingStartup');
    expect(h.calls).toHaveLength(1);
  });

  it('reports failure for a container that exited and waits for its restart', async () => {
    const h = await start({ probe: 'readiness', probeSpec: { exec: { command: ['r'] }, periodSeconds: 1 } });
    expect(results(h)).toEqual(['success']);
    await h.send({ type: 'probe.container.exited' });
    expect(results(h)).toEqual(['success', 'failure']);
    expect(h.state()).toBe('containerExited');
    await h.advance(5000);
    expect(h.calls).toHaveLength(1);
  });

  it.each([
    ['liveness', 'stopped', true],
    ['startup', 'stopped', true],
    ['readiness', 'waiting', false],
  ] as const)('on pod termination a %s worker ends in %s (for good: %s)', async (probe, state, forGood) => {
    const h = await start({ probe, probeSpec: { exec: { command: ['x'] }, periodSeconds: 1 } }, [], 'failure');
    await h.send({ type: 'probe.pod.terminating' });
    expect(h.state()).toBe(state);
    // `stopped` is not a final state (its parent stops the worker), but nothing takes it out of it.
    await h.send({ type: 'probe.container.restarted', containerId: 'c2', containerStartedAtMs: 1, podIP: '10.1.1.1' });
    expect(h.context().containerId).toBe(forGood ? 'c1' : 'c2');
  });

  it('reports success for a failed liveness probe when the pod terminates, for a quiet shutdown', async () => {
    const h = await start({ probeSpec: { exec: { command: ['x'] }, periodSeconds: 1, failureThreshold: 1 } }, [], 'failure');
    expect(results(h)).toEqual(['failure']);
    await h.send({ type: 'probe.pod.terminating' });
    expect(results(h)).toEqual(['failure', 'success']);
  });

  it('runs the probe at once when asked between attempts', async () => {
    const h = await start({ probe: 'readiness', probeSpec: { exec: { command: ['r'] }, periodSeconds: 10 } });
    await h.advance(2000);
    await h.send({ type: 'probe.run.requested' });
    expect(times(h)).toEqual([0, 2000]);
    await h.advance(10_000);
    expect(times(h)).toEqual([0, 2000, 12_000]);
  });

  it('hands an unresolvable handler to runProbe, whose unknown answers keep the initial verdict', async () => {
    const h = await start({ probe: 'readiness', probeSpec: { httpGet: { port: 'metrics' }, periodSeconds: 1 } }, [], 'unknown');
    await h.advance(3000);
    expect(h.calls[0]?.input.target).toEqual({ kind: 'unresolvable', reason: 'port metrics not found' });
    expect(h.calls).toHaveLength(4);
    expect(h.changes).toEqual([]);
    expect(h.context()['counter']).toEqual({ result: 'failure', lastResult: null, run: 0 });
  });
});
