/**
 * The supervisor: the Go kubelet's start-up order as one statechart.
 *
 * Contract:
 * - One state per phase of src/domain/phases.ts (`PHASES`), nested by the Go function that owns it
 *   (command → run → runKubelet → startKubelet → runTail). Each phase state invokes the actor of the
 *   same name; its output (plain JSON) is stored under `context.outputs[phase]` and the next phase
 *   starts. The supervisor owns the order; the actors own the work.
 * - A phase actor that rejects stops start-up in `failed`, naming the phase and the error.
 * - A phase actor may tell the supervisor what it waits on (`phase.waiting`), for /debug/actors,
 *   the report and the visualizer.
 * - `startKubelet.run` (Kubelet.Run) answers with the inputs of the long-lived subsystems; the
 *   supervisor then spawns them as its children: `volumeManager` (volumeManager.Run), `containerManager`
 *   (started on the first runtime-up), `runtime` (updateRuntimeUp), and in cluster mode
 *   `statusManager`, `nodeStatus` and `nodeLease`, then `evictionManager` (which waits for the
 *   runtime's first ready, Go's initializeRuntimeDependentModules), `pluginManager` (CSI driver
 *   registration, its watcher started by the same first ready), then `syncLoop` (pod config,
 *   PLEG, pod workers, probes). They live until the stop.
 * - `kubelet.stop.requested` (a signal) at any point before the end starts an orderly stop: the
 *   subsystems spawned last are stopped first (syncLoop, runtime), then `stopping` invokes
 *   `stopSubsystems` (what the phases opened, in reverse), bounded by `stopTimeoutMs`; then `stopped`.
 * Pure: no I/O, no clock reads; delays run on the injected clock.
 */
import { assertEvent, assign, enqueueActions, fromPromise, setup, type AnyEventObject, type PromiseActorLogic } from 'xstate';
import { PHASE_IDS, type PhaseId } from '../domain/phases.js';
import type { SerializedError } from '../domain/errors.js';
import { doneOutput, effectError } from './done-output.js';
import type { KubeletRunOutput, PhaseOutputs } from './phase-outputs.js';
import { subsystemSlot } from './subsystem-slot.js';

export type { KubeletRunOutput, PhaseOutputs } from './phase-outputs.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface PhaseInput {
  phase: PhaseId;
  /** Every earlier phase's output, by phase id. */
  outputs: Partial<PhaseOutputs>;
}

export interface SupervisorInput {
  argv: string[];
  stopTimeoutMs?: number;
}

export interface SupervisorContext {
  argv: string[];
  stopTimeoutMs: number;
  outputs: Partial<PhaseOutputs>;
  /** The phase whose state is active; null once running, stopping or done. */
  currentPhase: PhaseId | null;
  waiting: { phase: PhaseId; reason: string } | null;
  failure: { phase: PhaseId; error: SerializedError } | null;
  stop: { signal: string; duringPhase: PhaseId | 'running' } | null;
  stopOutcome: 'clean' | 'timedOut' | 'failed' | null;
}

export type SupervisorEvent =
  | { type: 'kubelet.stop.requested'; signal: string }
  | { type: 'phase.waiting'; phase: PhaseId; reason: string };

/** A phase's actor: takes the earlier outputs, answers its own entry of PhaseOutputs. */
export type PhaseLogic<K extends PhaseId> = PromiseActorLogic<PhaseOutputs[K], PhaseInput>;
export type PhaseActors = { [K in PhaseId]: PhaseLogic<K> };

/** Placeholder logic: every phase actor must be provided by the composition root or a test. */
const notProvided = (name: string) =>
  fromPromise<never, PhaseInput>(async () => {
    throw new Error(`actor ${name} was not provided`);
  });

// Object.fromEntries cannot carry a per-key type; a placeholder that never answers fits every phase.
const phaseActors = Object.fromEntries(PHASE_IDS.map((id) => [id, notProvided(id)])) as PhaseActors;


/** The long-lived subsystems in start order (stopped in reverse). */
export const SUBSYSTEMS = ['certificateManager', 'servingCertificateManager', 'volumeManager', 'containerManager', 'runtime', 'statusManager', 'nodeStatus', 'nodeLease', 'evictionManager', 'nodeShutdown', 'pluginManager', 'deviceManager', 'syncLoop'] as const;

const spawnSubsystems = enqueueActions(({ enqueue, event }: { enqueue: { spawnChild: (src: string, opts: object) => void }; event: AnyEventObject }) => {
  const out: KubeletRunOutput = doneOutput<KubeletRunOutput | undefined>(event) ?? {};
  for (const name of SUBSYSTEMS) {
    const input = out[name];
    if (input) enqueue.spawnChild(name, { id: name, systemId: name, input });
  }
});

/** The state tree: phase ids grouped by their owner, in order. `runTail` holds run()'s tail. */
const GROUPS = ['command', 'run', 'runKubelet', 'startKubelet'] as const;
const groupOf = (id: PhaseId, index: number): string =>
  index > PHASE_IDS.indexOf('startKubelet.servers') ? 'runTail' : (id.split('.')[0] as string);
const leafOf = (id: PhaseId): string => id.split('.')[1] as string;
export const PHASE_STATE_PATHS: Record<PhaseId, string> = Object.fromEntries(
  PHASE_IDS.map((id, i) => [id, `${groupOf(id, i)}.${leafOf(id)}`]),
) as Record<PhaseId, string>;

/** Finds the phase whose state is active (from a snapshot's state value), or null. */
export function activePhase(value: unknown): PhaseId | null {
  if (typeof value !== 'object' || value === null) return null;
  const [group, leaf] = Object.entries(value as Record<string, unknown>)[0] ?? [];
  if (typeof leaf !== 'string') return null;
  const path = `${group}.${leaf}`;
  return (PHASE_IDS.find((id) => PHASE_STATE_PATHS[id] === path) ?? null) as PhaseId | null;
}

export const supervisorMachine = setup({
  types: {
    context: {} as SupervisorContext,
    events: {} as SupervisorEvent,
    input: {} as SupervisorInput,
  },
  actors: {
    ...phaseActors,
    stopSubsystems: fromPromise<'clean' | 'failed', { signal: string }>(async () => {
      throw new Error('actor stopSubsystems was not provided');
    }),
    // The long-lived subsystems; the composition root provides the real machines.
    syncLoop: subsystemSlot<NonNullable<KubeletRunOutput['syncLoop']>>(),
    runtime: subsystemSlot<NonNullable<KubeletRunOutput['runtime']>>(),
    nodeStatus: subsystemSlot<NonNullable<KubeletRunOutput['nodeStatus']>>(),
    nodeLease: subsystemSlot<NonNullable<KubeletRunOutput['nodeLease']>>(),
    statusManager: subsystemSlot<NonNullable<KubeletRunOutput['statusManager']>>(),
    certificateManager: subsystemSlot<NonNullable<KubeletRunOutput['certificateManager']>>(),
    servingCertificateManager: subsystemSlot<NonNullable<KubeletRunOutput['servingCertificateManager']>>(),
    volumeManager: subsystemSlot<NonNullable<KubeletRunOutput['volumeManager']>>(),
    containerManager: subsystemSlot<NonNullable<KubeletRunOutput['containerManager']>>(),
    evictionManager: subsystemSlot<NonNullable<KubeletRunOutput['evictionManager']>>(),
    nodeShutdown: subsystemSlot<NonNullable<KubeletRunOutput['nodeShutdown']>>(),
    pluginManager: subsystemSlot<NonNullable<KubeletRunOutput['pluginManager']>>(),
    deviceManager: subsystemSlot<NonNullable<KubeletRunOutput['deviceManager']>>(),
  },
  actions: {
    recordWaiting: assign(({ event }) => {
      assertEvent(event, 'phase.waiting');
      return { waiting: { phase: event.phase, reason: event.reason } };
    }),
    recordStop: assign(({ context, event }) => {
      assertEvent(event, 'kubelet.stop.requested');
      return { stop: { signal: event.signal, duringPhase: context.currentPhase ?? ('running' as const) } };
    }),
  },
  delays: {
    stopTimeout: ({ context }) => context.stopTimeoutMs,
  },
}).createMachine({
  id: 'supervisor',
  initial: 'command',
  context: ({ input }) => ({
    argv: input.argv,
    stopTimeoutMs: input.stopTimeoutMs ?? 10_000,
    outputs: {},
    currentPhase: null,
    waiting: null,
    failure: null,
    stop: null,
    stopOutcome: null,
  }),
  on: {
    'kubelet.stop.requested': { target: '.stopping', actions: 'recordStop' },
    'phase.waiting': { actions: 'recordWaiting' },
  },
  states: {
    ...buildPhaseStates(),
    running: {
      entry: assign({ currentPhase: null }),
      meta: { description: 'Kubelet.Run is serving: the syncLoop runs until a stop signal' },
    },
    stopping: {
      entry: [assign({ currentPhase: null }), enqueueActions(({ enqueue }) => {
        for (const name of [...SUBSYSTEMS].reverse()) enqueue.stopChild(name);
      })],
      meta: { description: 'orderly stop: subsystems stopped in reverse start order, bounded in time' },
      on: { 'kubelet.stop.requested': {} },
      invoke: {
        id: 'stopSubsystems',
        src: 'stopSubsystems',
        input: ({ context }) => ({ signal: context.stop?.signal ?? 'unknown' }),
        onDone: { target: 'stopped', actions: assign({ stopOutcome: ({ event }) => event.output }) },
        onError: { target: 'stopped', actions: assign({ stopOutcome: 'failed' }) },
      },
      after: { stopTimeout: { target: 'stopped', actions: assign({ stopOutcome: 'timedOut' }) } },
    },
    stopped: { type: 'final' },
    failed: {
      type: 'final',
      meta: { description: 'a phase failed: the process exits non-zero, naming the phase and reason' },
    },
  },
});

/**
 * One compound state per owner, one child state per phase. Each phase state invokes the actor
 * named after the phase; done → next phase (or `running` after the last), error → `failed`.
 */
function buildPhaseStates() {
  const states: Record<string, { initial: string; states: Record<string, object> }> = {};
  PHASE_IDS.forEach((id, i) => {
    const [group, leaf] = PHASE_STATE_PATHS[id].split('.') as [string, string];
    const next = PHASE_IDS[i + 1];
    const target = next === undefined ? '#supervisor.running' : `#supervisor.${PHASE_STATE_PATHS[next]}`;
    const compound = (states[group] ??= { initial: leaf, states: {} });
    compound.states[leaf] = {
      meta: { phase: id },
      entry: assign({ currentPhase: id }),
      invoke: {
        id,
        src: id,
        input: ({ context }: { context: SupervisorContext }): PhaseInput => ({ phase: id, outputs: context.outputs }),
        onDone: {
          target,
          actions: [...(id === 'startKubelet.run' ? [spawnSubsystems] : []), assign({
            outputs: ({ context, event }: { context: SupervisorContext; event: AnyEventObject }) => ({
              ...context.outputs,
              [id]: doneOutput<unknown>(event) ?? null,
            }),
            waiting: null,
          })],
        },
        onError: {
          target: '#supervisor.failed',
          actions: assign({
            failure: ({ event }: { event: AnyEventObject }) => ({
              phase: id,
              error: effectError(event),
            }),
            waiting: null,
          }),
        },
      },
    };
  });
  // Keep the owners in the Go call order even if a group was first seen late.
  return Object.fromEntries([...GROUPS, 'runTail'].map((g) => [g, states[g]!]));
}
