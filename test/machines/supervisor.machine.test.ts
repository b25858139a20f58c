import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, SimulatedClock, waitFor, type AnyEventObject, type SnapshotFrom } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { KubeletError } from '../../src/domain/errors.js';
import { PHASE_IDS, type PhaseId } from '../../src/domain/phases.js';
import {
  activePhase,
  supervisorMachine,
  type JsonValue,
  type PhaseInput,
} from '../../src/machines/supervisor.machine.js';

/**
 * The Go kubelet's phase order (docs/ARCHITECTURE.md, Start-up), written out by hand so a reordering of PHASES is caught; but for
 * run.healthz, which kubelet-ts starts right after run.configz (issue 19; README, Where we differ). The runtime is
 * connected before the cgroup roots and the container manager, and asked for its cgroup driver, as in Go v1.28+
 * (getCgroupDriverFromCRI).
 */
const DESIGN_ORDER: PhaseId[] = [
  'command.parse', 'command.debugServer', 'command.featureGates', 'command.validateFlags',
  'command.loadConfigFile', 'command.validateConfig', 'command.dependencies',
  'run.lockFile', 'run.configz', 'run.healthz', 'run.standalone', 'run.nodeName', 'run.bootstrap', 'run.clients', 'run.auth',
  'run.preInitRuntime', 'run.cgroupDriverFromCRI',
  'run.cgroupRoots', 'run.machineInfo', 'run.eventRecorder', 'run.containerManager', 'run.oomScore',
  'runKubelet.validateNodeIP', 'runKubelet.newMainKubelet', 'runKubelet.birthCry', 'runKubelet.garbageCollection',
  'startKubelet.resourceManagers', 'startKubelet.run', 'startKubelet.servers',
  'run.sdNotify',
];

type Behaviour = (input: PhaseInput) => Promise<JsonValue>;

/** Every phase actor a fake that records its call and answers with `behaviour` (default: resolve). */
function fakePhases(calls: PhaseId[], behaviour: Partial<Record<PhaseId, Behaviour>> = {}) {
  return Object.fromEntries(
    PHASE_IDS.map((id) => [
      id,
      fromPromise<JsonValue, PhaseInput>(async ({ input }) => {
        calls.push(id);
        return (behaviour[id] ?? (async () => ({ done: id })))(input);
      }),
    ]),
  );
}

function startSupervisor(opts: {
  calls?: PhaseId[];
  behaviour?: Partial<Record<PhaseId, Behaviour>>;
  stop?: () => Promise<'clean' | 'failed'>;
  clock?: SimulatedClock;
  stopTimeoutMs?: number;
}) {
  const calls = opts.calls ?? [];
  const machine = supervisorMachine.provide({
    actors: {
      ...fakePhases(calls, opts.behaviour),
      stopSubsystems: fromPromise<'clean' | 'failed', { signal: string }>(opts.stop ?? (async () => 'clean')),
    },
  });
  const visited: PhaseId[] = [];
  const actor = createActor(machine, {
    input: { argv: [], stopTimeoutMs: opts.stopTimeoutMs },
    ...(opts.clock ? { clock: opts.clock } : {}),
    inspect: (ev) => {
      if (ev.type !== '@xstate.snapshot' || ev.actorRef !== actor) return;
      const phase = activePhase((ev.snapshot as { value?: unknown }).value);
      if (phase && visited.at(-1) !== phase) visited.push(phase);
    },
  });
  actor.start();
  return { actor, calls, visited };
}

const never = () => new Promise<never>(() => {});

describe('supervisorMachine', () => {
  it('walks the phases in exactly the Go kubelet\'s order and ends in running', async () => {
    const { actor, calls, visited } = startSupervisor({});
    const snap = await waitFor(actor, (s) => s.matches('running'));
    expect(PHASE_IDS).toEqual(DESIGN_ORDER);
    expect(calls).toEqual(DESIGN_ORDER);
    expect(visited).toEqual(DESIGN_ORDER);
    expect(Object.keys(snap.context.outputs)).toEqual(DESIGN_ORDER);
    actor.stop();
  });

  it('gives each phase the outputs of every earlier phase', async () => {
    const seen: Partial<Record<PhaseId, string[]>> = {};
    const behaviour = {
      'run.nodeName': async (input: PhaseInput) => {
        seen['run.nodeName'] = Object.keys(input.outputs);
        return { nodeName: 'node-a' };
      },
      'run.preInitRuntime': async (input: PhaseInput) => {
        seen['run.preInitRuntime'] = Object.keys(input.outputs);
        return (input.outputs['run.nodeName'] as { nodeName: string }).nodeName;
      },
    };
    const { actor } = startSupervisor({ behaviour });
    const snap = await waitFor(actor, (s) => s.matches('running'));
    expect(seen['run.nodeName']).toEqual(DESIGN_ORDER.slice(0, DESIGN_ORDER.indexOf('run.nodeName')));
    expect(snap.context.outputs['run.preInitRuntime']).toBe('node-a');
    actor.stop();
  });

  it.each(DESIGN_ORDER)('ends in failed naming %s and its reason when that phase fails', async (phase) => {
    const behaviour = {
      [phase]: async () => {
        throw new KubeletError('KLT_ERR_CONFIG_INVALID', `broken in ${phase}`);
      },
    };
    const { actor, calls } = startSupervisor({ behaviour });
    const snap = await waitFor(actor, (s) => s.status === 'done');
    expect(snap.value).toBe('failed');
    expect(snap.context.failure).toEqual({
      phase,
      error: { code: 'KLT_ERR_CONFIG_INVALID', message: `broken in ${phase}`, retryable: false },
    });
    expect(calls.at(-1)).toBe(phase);
  });

  it('keeps a foreign error as KLT_ERR_INTERNAL with its message', async () => {
    const behaviour = { 'run.oomScore': async () => { throw new TypeError('boom'); } };
    const { actor } = startSupervisor({ behaviour });
    const snap = await waitFor(actor, (s) => s.status === 'done');
    expect(snap.context.failure).toEqual({ phase: 'run.oomScore', error: { code: 'KLT_ERR_INTERNAL', message: 'boom', retryable: false } });
  });

  it('keeps an errno error as KLT_ERR_INTERNAL, not as a code of ours (the duck-typed copy kept EACCES)', async () => {
    const behaviour = { 'run.oomScore': async () => { throw Object.assign(new Error('EACCES: denied'), { code: 'EACCES' }); } };
    const { actor } = startSupervisor({ behaviour });
    const snap = await waitFor(actor, (s) => s.status === 'done');
    expect(snap.context.failure).toEqual({ phase: 'run.oomScore', error: { code: 'KLT_ERR_INTERNAL', message: 'EACCES: denied', retryable: false } });
  });

  it('records what a phase waits on, and clears it when the phase ends', async () => {
    let release!: () => void;
    const behaviour = {
      'run.preInitRuntime': async () => {
        await new Promise<void>((r) => (release = r));
        return null;
      },
    };
    const { actor } = startSupervisor({ behaviour });
    await waitFor(actor, (s) => s.context.currentPhase === 'run.preInitRuntime');
    actor.send({ type: 'phase.waiting', phase: 'run.preInitRuntime', reason: 'runtime socket absent' });
    expect(actor.getSnapshot().context.waiting).toEqual({ phase: 'run.preInitRuntime', reason: 'runtime socket absent' });
    release();
    const snap = await waitFor(actor, (s) => s.matches('running'));
    expect(snap.context.waiting).toBeNull();
    actor.stop();
  });

  it('stops in order when kubelet.stop.requested arrives while running', async () => {
    let stopCalls = 0;
    const { actor } = startSupervisor({ stop: async () => { stopCalls++; return 'clean'; } });
    await waitFor(actor, (s) => s.matches('running'));
    actor.send({ type: 'kubelet.stop.requested', signal: 'SIGTERM' });
    const snap = await waitFor(actor, (s) => s.status === 'done');
    expect(snap.value).toBe('stopped');
    expect(snap.context.stop).toEqual({ signal: 'SIGTERM', duringPhase: 'running' });
    expect(snap.context.stopOutcome).toBe('clean');
    expect(stopCalls).toBe(1);
  });

  it('stops from the middle of start-up and names the phase it interrupted', async () => {
    const { actor } = startSupervisor({ behaviour: { 'run.machineInfo': never } });
    await waitFor(actor, (s) => s.context.currentPhase === 'run.machineInfo');
    actor.send({ type: 'kubelet.stop.requested', signal: 'SIGINT' });
    const snap = await waitFor(actor, (s) => s.status === 'done');
    expect(snap.value).toBe('stopped');
    expect(snap.context.stop).toEqual({ signal: 'SIGINT', duringPhase: 'run.machineInfo' });
  });

  it('gives up waiting for subsystems after stopTimeoutMs on the injected clock', async () => {
    const clock = new SimulatedClock();
    const { actor } = startSupervisor({ clock, stop: never, stopTimeoutMs: 10_000 });
    await waitFor(actor, (s) => s.matches('running'));
    actor.send({ type: 'kubelet.stop.requested', signal: 'SIGTERM' });
    clock.increment(9_999);
    expect(actor.getSnapshot().value).toBe('stopping');
    clock.increment(1);
    expect(actor.getSnapshot().value).toBe('stopped');
    expect(actor.getSnapshot().context.stopOutcome).toBe('timedOut');
  });

  it('ignores a second stop signal while stopping', async () => {
    let stopCalls = 0;
    let finish!: (v: 'clean') => void;
    const { actor } = startSupervisor({ stop: () => { stopCalls++; return new Promise((r) => (finish = r)); } });
    await waitFor(actor, (s) => s.matches('running'));
    actor.send({ type: 'kubelet.stop.requested', signal: 'SIGTERM' });
    await waitFor(actor, (s) => s.matches('stopping'));
    actor.send({ type: 'kubelet.stop.requested', signal: 'SIGTERM' });
    finish('clean');
    await waitFor(actor, (s) => s.status === 'done');
    expect(stopCalls).toBe(1);
    expect(actor.getSnapshot().context.stop?.signal).toBe('SIGTERM');
  });
});

describe('supervisorMachine subsystems', () => {
  it('spawns runtime and syncLoop from Kubelet.Run\'s output and stops them before stopSubsystems', async () => {
    const order: string[] = [];
    const subsystem = (name: string) => fromCallback(({ input }: { input: unknown }) => {
      order.push(`start ${name} ${JSON.stringify(input)}`);
      return () => order.push(`stop ${name}`);
    });
    const machine = supervisorMachine.provide({
      actors: {
        ...fakePhases([], { 'startKubelet.run': async () => ({ runtime: { startedAtMs: 5 }, syncLoop: { nodeName: 'n' } }) }),
        stopSubsystems: fromPromise<'clean' | 'failed', { signal: string }>(async () => { order.push('stopSubsystems'); return 'clean'; }),
        syncLoop: subsystem('syncLoop'),
        runtime: subsystem('runtime'),
      },
    });
    const actor = createActor(machine, { input: { argv: [] } });
    actor.start();
    await waitFor(actor, (s) => s.matches('running'));
    expect(Object.keys(actor.getSnapshot().children).sort()).toEqual(['runtime', 'syncLoop']);
    actor.send({ type: 'kubelet.stop.requested', signal: 'SIGTERM' });
    await waitFor(actor, (s) => s.status === 'done');
    expect(order).toEqual(['start runtime {"startedAtMs":5}', 'start syncLoop {"nodeName":"n"}', 'stop syncLoop', 'stop runtime', 'stopSubsystems']);
  });
});

describe('supervisorMachine as a graph', () => {
  // Traverse the machine logic itself with the events its actors would answer with.
  const events: AnyEventObject[] = [
    ...PHASE_IDS.map((id) => ({ type: `xstate.done.actor.${id}`, output: null })),
    ...PHASE_IDS.map((id) => ({ type: `xstate.error.actor.${id}`, error: { code: 'KLT_ERR_INTERNAL', message: 'x' } })),
    { type: 'kubelet.stop.requested', signal: 'SIGTERM' },
    { type: 'xstate.done.actor.stopSubsystems', output: 'clean' },
  ];
  const paths = getShortestPaths(supervisorMachine, {
    events: events as never,
    input: { argv: [] },
    serializeState: (s: SnapshotFrom<typeof supervisorMachine>) => JSON.stringify(s.value),
  } as never);
  const reached = new Set(paths.map((p) => activePhase(p.state.value)).filter((p) => p !== null));
  const values = new Set(paths.map((p) => JSON.stringify(p.state.value)));

  it('reaches every phase', () => {
    expect([...reached].sort()).toEqual([...PHASE_IDS].sort());
  });

  it('reaches running, stopping, stopped and failed', () => {
    for (const v of ['running', 'stopping', 'stopped', 'failed']) expect(values.has(JSON.stringify(v))).toBe(true);
  });

  it('reaches each phase only through every phase before it', () => {
    for (const path of paths) {
      const phase = activePhase(path.state.value);
      if (!phase) continue;
      const done = path.steps.map((s) => s.event.type).filter((t) => t.startsWith('xstate.done.actor.'));
      expect(done.map((t) => t.slice('xstate.done.actor.'.length))).toEqual(PHASE_IDS.slice(0, PHASE_IDS.indexOf(phase)));
    }
  });
});
