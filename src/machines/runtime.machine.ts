/**
 * The container runtime's state, as the kubelet sees it (Kubelet.Run's updateRuntimeUp, every 5 s):
 * `connecting` until the first answer, then `ready` ⇄ `notReady`, and `down` after 30 s without a
 * successful Status. A runtime that goes away makes the node not ready; it never stops the process.
 * Each state cycles `waiting` → `checking` (the `checkRuntime` effect, which always answers with
 * data — a failed call is a fact like any other in the journal) → the state the answer implies.
 * Pure: times come on the answers (`observedAtMs`); the period runs on the injected clock.
 */
import { assign, enqueueActions, fromPromise, setup, type AnyEventObject } from 'xstate';
import { doneOutput } from './done-output.js';
import { sendToSystemIfRunning } from './system-sends.js';
import { RUNTIME_STATUS_PERIOD_MS, runtimeHealth, type RuntimeCheck, type RuntimeHealth } from '../domain/runtime/runtime-state.js';

export interface RuntimeMachineInput {
  /** When the machine started, on the injected clock (the "down" window counts from here). */
  startedAtMs: number;
  periodMs?: number;
}

export interface RuntimeMachineContext {
  startedAtMs: number;
  periodMs: number;
  /** The last Status call that succeeded: what a failed one within 30 s leaves standing. */
  lastSuccess: RuntimeCheck | null;
  last: RuntimeCheck | null;
  /** Why the runtime is not ready ('' when ready): the node's Ready condition message. */
  reason: string;
  /** The health last announced to the syncLoop, so only changes are sent. */
  announced: RuntimeHealth | null;
  /** RuntimeReady was seen: the runtime-dependent modules were told (`runtime.up`), once. */
  runtimeUp: boolean;
}

/**
 * Sent once to the runtime-dependent modules (system ids `containerManager`, `evictionManager`,
 * `nodeShutdown`, `pluginManager`, `deviceManager`) on the
 * first answer with RuntimeReady, whatever the network says: Go's updateRuntimeUp runs
 * initializeRuntimeDependentModules then, once (oneTimeInitializer), and that starts both.
 */
export interface RuntimeUpEvent { type: 'runtime.up' }

/** Who is told `runtime.up`: the modules Go's initializeRuntimeDependentModules starts that are built here. */
const RUNTIME_DEPENDENT_MODULES = ['containerManager', 'evictionManager', 'nodeShutdown', 'pluginManager', 'deviceManager'] as const;

/** Sent to the syncLoop (system id `syncLoop`) when the runtime's health changes. */
export interface RuntimeHealthChangedEvent { type: 'runtime.health.changed'; health: RuntimeHealth; reason: string }

export const RUNTIME_EFFECTS = ['checkRuntime'] as const;

const HEALTH_STATES = ['ready', 'notReady', 'down'] as const;

// Only the checkRuntime invoke's onDone calls this.
const answer = (event: AnyEventObject) => doneOutput<RuntimeCheck>(event);

/**
 * Tell the syncLoop when the health changes (Go's syncLoop skips work while the runtime has errors),
 * and in cluster mode the node status (its Ready condition).
 */
const announceChange = (health: RuntimeHealth) =>
  enqueueActions<RuntimeMachineContext, AnyEventObject, undefined, AnyEventObject, never, never, never, never, never>(({ context, event, enqueue, system }) => {
    if (context.announced === health) return;
    const check = answer(event);
    const reason = runtimeHealth(check, context.lastSuccess, context.startedAtMs).reason;
    // The syncLoop is stopped before the runtime actor, which may still answer during the stop.
    sendToSystemIfRunning(enqueue, system, 'syncLoop', { type: 'runtime.health.changed', health, reason } satisfies RuntimeHealthChangedEvent);
    // Cluster mode only: the node's Ready condition follows the runtime (Go: runtimeState.runtimeErrors/networkErrors).
    sendToSystemIfRunning(enqueue, system, 'nodeStatus', {
      type: 'node.runtime.health',
      runtimeReady: check.ok && check.runtimeReady === true,
      networkReady: check.ok && check.networkReady === true,
      ...(reason ? { message: reason } : {}),
      observedAtMs: check.observedAtMs,
    });
  });

const announceRuntimeUp = enqueueActions<RuntimeMachineContext, AnyEventObject, undefined, AnyEventObject, never, never, never, never, never>(({ context, event, enqueue, system }) => {
  const check = answer(event);
  if (context.runtimeUp || !check.ok || check.runtimeReady !== true) return;
  // The eviction manager runs only with thresholds set; either may be stopped already during a stop.
  for (const id of RUNTIME_DEPENDENT_MODULES) sendToSystemIfRunning(enqueue, system, id, { type: 'runtime.up' } satisfies RuntimeUpEvent);
  enqueue.assign({ runtimeUp: true });
});

export const runtimeMachine = setup({
  types: { context: {} as RuntimeMachineContext, input: {} as RuntimeMachineInput },
  actors: {
    checkRuntime: fromPromise<RuntimeCheck>(async () => {
      throw new Error('actor checkRuntime was not provided');
    }),
  },
  delays: { period: ({ context }) => context.periodMs },
}).createMachine({
  id: 'runtime',
  context: ({ input }) => ({
    startedAtMs: input.startedAtMs,
    periodMs: input.periodMs ?? RUNTIME_STATUS_PERIOD_MS,
    lastSuccess: null,
    last: null,
    reason: 'no status from the container runtime yet',
    announced: null,
    runtimeUp: false,
  }),
  initial: 'connecting',
  states: {
    connecting: { meta: { description: 'no Status answer yet' }, ...cycle('checking') },
    ready: { meta: { description: 'RuntimeReady and NetworkReady' }, ...cycle('waiting') },
    notReady: { meta: { description: 'the runtime or its network is not ready, or a check failed' }, ...cycle('waiting') },
    down: { meta: { description: 'no successful Status for 30 s' }, ...cycle('waiting') },
  },
});


/** waiting → (period) → checking → the health state the answer implies (re-entered each time). */
function cycle(initial: 'waiting' | 'checking'): { initial: string; states: Record<string, object> } {
  return {
    initial,
    states: {
      waiting: { after: { period: 'checking' } },
      checking: {
        invoke: {
          id: 'checkRuntime',
          src: 'checkRuntime' as const,
          onDone: HEALTH_STATES.map((health) => ({
            target: `#runtime.${health}`,
            guard: ({ context, event }: { context: RuntimeMachineContext; event: AnyEventObject }) =>
              runtimeHealth(answer(event), context.lastSuccess, context.startedAtMs).health === health,
            actions: [announceChange(health), announceRuntimeUp, assign(({ context, event }: { context: RuntimeMachineContext; event: AnyEventObject }) => ({
              last: answer(event),
              lastSuccess: answer(event).ok ? answer(event) : context.lastSuccess,
              reason: runtimeHealth(answer(event), context.lastSuccess, context.startedAtMs).reason,
              announced: health,
            }))],
          })),
        },
      },
    },
  };
}
