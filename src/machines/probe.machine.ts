/**
 * The probe worker: one actor per (pod, container, probe type), the Go kubelet's prober worker
 * (pkg/kubelet/prober/worker.go) as a statechart.
 *
 * Contract:
 * - Spawned by the probe manager when a container with this probe starts, with the container's id
 *   and start time. It waits out `initialDelaySeconds` counted from the container's start, then runs
 *   the probe (`runProbe`, the only effect) and again `periodSeconds` after each attempt ends.
 * - Verdicts change only after `successThreshold` successes or `failureThreshold` failures in a row
 *   (domain/probe/thresholds). Readiness starts as failure, liveness as success, startup as unknown
 *   (`initialProbeResult`); the parent knows these and is told only of changes:
 *   `probe.result.changed`, sent to the parent.
 * - Liveness and readiness of a container with a startup probe wait in `awaitingStartup` until the
 *   parent sends `probe.startup.succeeded` for their current container (one naming another container
 *   is stale and ignored); a startup worker that succeeds rests in `started`.
 * - A liveness or startup failure means the container will be restarted: the worker holds (`onHold`)
 *   until `probe.container.restarted` names the new container, which resets counters, verdict and
 *   initial delay from any state. `probe.container.exited` marks the verdict failure, as Go does for
 *   a container that is not running, and waits for the restart.
 * - `probe.pod.terminating`: liveness and startup workers report success and stop, so a pod that is
 *   shutting down is not restarted by its probes; readiness keeps probing.
 * - `probe.run.requested` runs the probe now when the worker is between attempts (Go: manualTriggerCh).
 *
 * Where this differs from Go:
 * - Go's ticker starts when the pod is added and probes at the first tick past the initial delay (and
 *   sleeps a random part of a period after a kubelet restart); here the first attempt comes exactly
 *   at the initial delay, and the period runs from the end of one attempt to the start of the next.
 * - Go keeps `lastResult`/`resultRun` across a container restart; here they are reset with the new
 *   container, so a new container never inherits failures counted against its predecessor.
 * - Once the startup gate lifts, liveness probes at once instead of at its next tick (readiness
 *   probes at once in Go too: its status update triggers a readiness worker that has no result yet).
 *
 * Pure: no I/O and no clock reads; delays run on the injected clock, probes run in `runProbe`.
 */
import { assertEvent, assign, enqueueActions, fromPromise, not, sendParent, setup } from 'xstate';
import type { Container } from '../domain/pod/types.js';
import { containerProbe, probeTiming, type ProbeTiming } from '../domain/probe/defaults.js';
import { resolveProbeTarget } from '../domain/probe/target.js';
import { countProbeResult, holdAfterFailure, initialProbeCounter, type ProbeCounter } from '../domain/probe/thresholds.js';
import type { ProbeOutcome, ProbeResult, ProbeTarget, ProbeType } from '../domain/probe/types.js';
import type { ObjectReference } from '../domain/status-manager/event-aggregation.js';

/** The effectful actors replay makes inert. */
export const PROBE_EFFECTS = ['runProbe'] as const;

export interface ProbeInput {
  podUid: string;
  /** The pod's IP ('' if none yet); the default host of httpGet, tcpSocket and gRPC probes. */
  podIP: string;
  hostIP?: string;
  /** The container spec, holding the probe this worker runs. */
  container: Container;
  /** The running container's runtime id (exec probes run in it; results are for it). */
  containerId: string;
  probe: ProbeType;
  /** When the container started, on the injected clock (ms). */
  containerStartedAtMs: number;
  /** When the parent spawned this worker, on the same clock; defaults to containerStartedAtMs. */
  observedAtMs?: number;
  /**
   * Liveness/readiness only: hold until `probe.startup.succeeded`. Defaults to whether the container
   * has a startup probe; a parent that already saw the startup probe succeed passes false.
   */
  awaitStartup?: boolean;
  /** The container as events name it (the pod, fieldPath spec.containers{name}): failures are recorded against it. */
  containerRef?: ObjectReference;
}

export interface ProbeContext {
  podUid: string;
  podIP: string;
  hostIP: string;
  container: Container;
  containerId: string;
  probe: ProbeType;
  timing: ProbeTiming;
  target: ProbeTarget;
  /** What is left of the initial delay when the current container's worker (re)starts. */
  initialDelayRemainingMs: number;
  startupSucceeded: boolean;
  counter: ProbeCounter;
  /** The last attempt as the prober saw it (for /debug/actors and the visualizer). */
  lastOutcome: ProbeOutcome | null;
  /** How many attempts ran against the current container. */
  attempts: number;
  containerRef: ObjectReference | null;
}

export type ProbeEvent =
  /** The container's startup probe succeeded: `containerId` is the container it judged. */
  | { type: 'probe.startup.succeeded'; containerId: string }
  | {
      type: 'probe.container.restarted';
      containerId: string;
      containerStartedAtMs: number;
      observedAtMs?: number;
      /** The pod's IP if it changed (a new sandbox). */
      podIP?: string;
    }
  | { type: 'probe.container.exited' }
  | { type: 'probe.pod.terminating' }
  | { type: 'probe.run.requested' };

/** What the worker tells its parent when its verdict changes. */
export interface ProbeResultChangedEvent {
  type: 'probe.result.changed';
  podUid: string;
  /** The container's name. */
  container: string;
  containerId: string;
  probe: ProbeType;
  result: ProbeResult;
  /** The prober's output for the attempt that changed the verdict, when there was one. */
  output?: string;
  /** When that attempt ended (the probe actor's stamp); absent for changes no attempt made. */
  observedAtMs?: number;
}

export interface RunProbeInput {
  probe: ProbeType;
  target: ProbeTarget;
  /** Where the attempt's Unhealthy / ProbeWarning event goes; without it, none is recorded. */
  containerRef?: ObjectReference;
}

function initialDelayRemaining(timing: ProbeTiming, startedAtMs: number, observedAtMs: number | undefined): number {
  const elapsed = Math.max(0, (observedAtMs ?? startedAtMs) - startedAtMs);
  return Math.max(0, timing.initialDelaySeconds * 1000 - elapsed);
}

function buildContext(input: ProbeInput): ProbeContext {
  const spec = containerProbe(input.container, input.probe) ?? {};
  const timing = probeTiming(spec);
  const gated = input.probe !== 'startup' && (input.awaitStartup ?? input.container.startupProbe !== undefined);
  return {
    podUid: input.podUid,
    podIP: input.podIP,
    hostIP: input.hostIP ?? '',
    container: input.container,
    containerId: input.containerId,
    probe: input.probe,
    timing,
    target: resolveProbeTarget(spec, input.container, {
      podIP: input.podIP,
      hostIP: input.hostIP,
      containerId: input.containerId,
    }),
    initialDelayRemainingMs: initialDelayRemaining(timing, input.containerStartedAtMs, input.observedAtMs),
    startupSucceeded: !gated,
    counter: initialProbeCounter(input.probe),
    lastOutcome: null,
    attempts: 0,
    containerRef: input.containerRef ?? null,
  };
}

function resultChanged(context: ProbeContext, result: ProbeResult, outcome?: ProbeOutcome): ProbeResultChangedEvent {
  return {
    type: 'probe.result.changed',
    podUid: context.podUid,
    container: context.container.name,
    containerId: context.containerId,
    probe: context.probe,
    result,
    ...(outcome?.output ? { output: outcome.output } : {}),
    ...(outcome?.observedAtMs !== undefined ? { observedAtMs: outcome.observedAtMs } : {}),
  };
}

/** Whether this attempt puts a liveness/startup worker on hold: its failure threshold is reached. */
function holdsAfter(context: ProbeContext, outcome: ProbeOutcome): boolean {
  if (context.probe === 'readiness') return false;
  const counted = countProbeResult(context.counter, outcome.result, context.timing);
  return counted.reachedThreshold && counted.counter.result === 'failure';
}

/** Whether this attempt completes a startup worker's job for the current container. */
function startsAfter(context: ProbeContext, outcome: ProbeOutcome): boolean {
  if (context.probe !== 'startup') return false;
  return countProbeResult(context.counter, outcome.result, context.timing).counter.result === 'success';
}

export const probeMachine = setup({
  types: {
    context: {} as ProbeContext,
    events: {} as ProbeEvent,
    input: {} as ProbeInput,
  },
  actors: {
    runProbe: fromPromise<ProbeOutcome, RunProbeInput>(async () => {
      throw new Error('actor runProbe was not provided');
    }),
  },
  guards: {
    hasInitialDelayLeft: ({ context }) => context.initialDelayRemainingMs > 0,
    isStartupPending: ({ context }) => !context.startupSucceeded,
    isForCurrentContainer: ({ context, event }) => event.type === 'probe.startup.succeeded' && event.containerId === context.containerId,
    isHoldingOutcome: ({ context }, params: { outcome: ProbeOutcome }) => holdsAfter(context, params.outcome),
    isStartingOutcome: ({ context }, params: { outcome: ProbeOutcome }) => startsAfter(context, params.outcome),
    isStoppedByTermination: ({ context }) => context.probe === 'liveness' || context.probe === 'startup',
  },
  actions: {
    /** A new container: fresh verdict, counters and initial delay; the startup gate closes again. */
    resetForNewContainer: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'probe.container.restarted');
      const podIP = event.podIP ?? context.podIP;
      const spec = containerProbe(context.container, context.probe) ?? {};
      const counter = initialProbeCounter(context.probe);
      enqueue.assign({
        containerId: event.containerId,
        podIP,
        target: resolveProbeTarget(spec, context.container, {
          podIP,
          hostIP: context.hostIP,
          containerId: event.containerId,
        }),
        initialDelayRemainingMs: initialDelayRemaining(context.timing, event.containerStartedAtMs, event.observedAtMs),
        startupSucceeded: context.probe === 'startup' || context.container.startupProbe === undefined,
        counter,
        lastOutcome: null,
        attempts: 0,
      });
      // Go sets the initial value for the new container id; a parent holding another verdict must hear it.
      if (counter.result !== context.counter.result) {
        enqueue(sendParent({ ...resultChanged(context, counter.result), containerId: event.containerId }));
      }
    }),
    recordStartupSucceeded: assign({ startupSucceeded: true }),
    /** Counts the attempt's result and tells the parent when the verdict flips. */
    countOutcome: enqueueActions(({ context, enqueue }, params: { outcome: ProbeOutcome }) => {
      const { outcome } = params;
      const counted = countProbeResult(context.counter, outcome.result, context.timing);
      enqueue.assign({
        counter: holdsAfter(context, outcome) ? holdAfterFailure(counted.counter) : counted.counter,
        lastOutcome: outcome,
        attempts: context.attempts + 1,
      });
      if (counted.changed) enqueue(sendParent(resultChanged(context, counted.counter.result, outcome)));
    }),
    /** The probe actor itself failed (a bug, not a probe failure): Go discards such an attempt. */
    recordProbeError: assign({
      lastOutcome: (_, params: { error: unknown }) => ({ result: 'unknown' as const, output: errorText(params.error) }),
    }),
    /** Go marks a container that is not running as failing every probe. */
    markExited: enqueueActions(({ context, enqueue }) => {
      if (context.counter.result === 'failure') return;
      enqueue.assign({ counter: { ...context.counter, result: 'failure' } });
      enqueue(sendParent(resultChanged(context, 'failure')));
    }),
    /** Go reports liveness/startup success once deletion is requested, for a quiet shutdown. */
    markSucceededForShutdown: enqueueActions(({ context, enqueue }) => {
      if (context.counter.result === 'success') return;
      enqueue.assign({ counter: { ...context.counter, result: 'success' } });
      enqueue(sendParent(resultChanged(context, 'success')));
    }),
  },
  delays: {
    initialDelay: ({ context }) => context.initialDelayRemainingMs,
    period: ({ context }) => context.timing.periodSeconds * 1000,
  },
}).createMachine({
  id: 'probe',
  initial: 'initialDelay',
  context: ({ input }) => buildContext(input),
  on: {
    'probe.container.restarted': { target: '.initialDelay', actions: 'resetForNewContainer' },
    'probe.container.exited': { target: '.containerExited', actions: 'markExited' },
    'probe.pod.terminating': { guard: 'isStoppedByTermination', target: '.stopped', actions: 'markSucceededForShutdown' },
    'probe.startup.succeeded': { guard: 'isForCurrentContainer', actions: 'recordStartupSucceeded' },
  },
  states: {
    initialDelay: {
      meta: { description: 'initialDelaySeconds from the container start have not passed yet' },
      always: { guard: not('hasInitialDelayLeft'), target: 'awaitingStartup' },
      after: { initialDelay: 'awaitingStartup' },
    },
    awaitingStartup: {
      meta: { description: 'liveness/readiness wait until the startup probe has succeeded' },
      always: { guard: not('isStartupPending'), target: 'probing' },
      on: { 'probe.startup.succeeded': { guard: 'isForCurrentContainer', target: 'probing', actions: 'recordStartupSucceeded' } },
    },
    probing: {
      meta: { description: 'one probe attempt is running' },
      invoke: {
        id: 'runProbe',
        src: 'runProbe',
        input: ({ context }) => ({ probe: context.probe, target: context.target, ...(context.containerRef ? { containerRef: context.containerRef } : {}) }),
        onDone: [
          {
            guard: { type: 'isHoldingOutcome', params: ({ event }) => ({ outcome: event.output }) },
            target: 'onHold',
            actions: { type: 'countOutcome', params: ({ event }) => ({ outcome: event.output }) },
          },
          {
            guard: { type: 'isStartingOutcome', params: ({ event }) => ({ outcome: event.output }) },
            target: 'started',
            actions: { type: 'countOutcome', params: ({ event }) => ({ outcome: event.output }) },
          },
          { target: 'waiting', actions: { type: 'countOutcome', params: ({ event }) => ({ outcome: event.output }) } },
        ],
        onError: { target: 'waiting', actions: { type: 'recordProbeError', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    waiting: {
      meta: { description: 'periodSeconds until the next attempt' },
      after: { period: 'probing' },
      on: { 'probe.run.requested': 'probing' },
    },
    onHold: {
      meta: { description: 'the container failed its probe and will be restarted: waiting for the new container' },
    },
    started: {
      meta: { description: 'the startup probe succeeded: nothing to probe until the container restarts' },
    },
    containerExited: {
      meta: { description: 'the container is not running: waiting for its restart' },
    },
    stopped: {
      meta: { description: 'the pod is terminating: liveness and startup no longer judge it' },
      // Not a final state, whose answer `xstate.done.actor.probe:<uid>:…` xstate would memoise for
      // good (answering-effect.ts): every event ends here, and the syncLoop stops the worker with its pod's.
      on: { '*': {} },
    },
  },
});

function errorText(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'message' in error) return String((error as { message: unknown }).message);
  return String(error);
}
