/**
 * The generic PLEG (pkg/kubelet/pleg/generic.go): relists the runtime every relistPeriod (1 s) and
 * turns what changed since the last relist into past-tense pod lifecycle events.
 *
 * States:
 * - `relisting`: invokes `relist` (every sandbox and container, grouped by pod uid, stamped with the
 *   clock when it started). Its pods are compared with the previous relist's (diffRelists); the
 *   events, ContainerChanged left out as Go does, go to the parent as
 *   `{ type: 'pleg.events', events: [{ podUid, type, containerId }], observedAtMs }` when there are any.
 *   With events of containers that died or went, `deadCounts` tells what the relist shows of those
 *   pods' dead (dead-counts.ts).
 *   `lastRelistAtMs` becomes the relist's time: health is `isPlegHealthy(lastRelistAtMs, now)`.
 *   When the set of running pods (a running container or a ready sandbox) changed, the message
 *   carries it whole as `runningPodUids` (sent even without events then): the syncLoop looks for
 *   orphaned pods in it, as Go's housekeeping reads the runtime cache.
 * - `waiting`: relistPeriod after the last relist ended (wait.Until's sliding period), then relisting.
 * A failed relist keeps the previous pods and time (so health decays) and tries again next period.
 *
 * The first relist compares against nothing, so every running container yields ContainerStarted,
 * as in Go after a kubelet restart.
 *
 * The bound (Go's eventChannel of plegChannelCapacity, 1000): Go's relist puts each event into a
 * channel the syncLoop drains; when it is full the event is discarded, an error logged and
 * kubelet_pleg_discard_events incremented. Here a relist's events travel as one message, which the
 * syncLoop handles whole when it is delivered, so no earlier relist's events are ever waiting when
 * the next one comes: only a single relist with more than 1000 events can exceed the bound. A
 * message carries at most PLEG_CHANNEL_CAPACITY events (the first in the diff's order, pods by
 * uid; Go keeps whichever fit); the rest are dropped and counted in `discardedEvents` (since
 * start, exported as kubelet_pleg_discard_events) and in the message's `discarded`. Nothing is
 * logged (a machine does not log): the journal has the message with its count. The running set
 * and the relist's pods are kept whole, so a dropped event is not seen again; its pod syncs at its
 * next resync or its next event, as in Go. The pods all of whose events were dropped are named in
 * `discardedPodUids`: their next resync must read the runtime (Go's reads a cache the relist kept
 * up to date; ours would plan from a view older than the change).
 *
 * Differs from Go: there is no pod cache (the pod worker reads the pod's status itself), so there
 * is no cache update, re-inspection of pods whose status read failed, or PodSync events for them;
 * the evented PLEG is not built.
 * Pure: no I/O, no clock reads.
 */
import { assign, enqueueActions, fromPromise, sendParent, setup } from 'xstate';
import { sendToSystemIfRunning } from './system-sends.js';
import type { SerializedError } from '../domain/errors.js';
import { doneOutput, effectError } from './done-output.js';
import { deadCounts, type PodDeadCounts } from '../domain/pleg/dead-counts.js';
import { diffRelists, reportableEvents, type PlegEvent } from '../domain/pleg/diff.js';
import type { RelistInput, RelistOutput, RelistPod } from '../domain/pleg/relist.js';
import { runningPodUids, sameUids } from '../domain/pleg/running-pods.js';

export interface PlegInput {
  /** Default 1000 (Go's genericPlegRelistPeriod). */
  relistPeriodMs?: number;
}

export interface PlegContext {
  relistPeriodMs: number;
  /** The last successful relist's pods; empty before the first. */
  pods: RelistPod[];
  /** The uids of the running pods as last sent to the parent (sorted; empty before any). */
  runningPodUids: string[];
  /** Their digest, handed to the next relist so an identical answer need not be repeated. */
  digest: string | null;
  lastRelistAtMs: number | null;
  lastRelistDurationMs: number | null;
  relistCount: number;
  lastError: SerializedError | null;
  /** Events dropped because a relist had more than PLEG_CHANNEL_CAPACITY, since start. */
  discardedEvents: number;
}

/** Sent to the parent after a relist that saw changes. */
export interface PlegEventsEvent {
  type: 'pleg.events';
  events: PlegEvent[];
  observedAtMs: number;
  /** Every running pod's uid, present when that set changed since the last message. */
  runningPodUids?: string[];
  /** How many of this relist's events were dropped beyond the bound; present when any were. */
  discarded?: number;
  /**
   * With `discarded`: the pods all of whose events were dropped. Go's relist has updated its pod
   * cache for them all the same, so their next periodic sync sees the change; ours have no cache,
   * so their workers are told to read the runtime afresh at their next periodic sync.
   */
  discardedPodUids?: string[];
  /**
   * For each pod with a ContainerDied or ContainerRemoved among `events`: what this relist shows of
   * its dead (dead-counts.ts), for the syncLoop to ask the pod deletors only when they have work.
   */
  deadCounts?: Record<string, PodDeadCounts>;
}

/** Go's plegChannelCapacity: at most this many events reach the syncLoop per relist. */
export const PLEG_CHANNEL_CAPACITY = 1000;

/** The effectful actor srcs: replay makes exactly these inert. */
export const PLEG_EFFECTS = ['relist'] as const;

export const plegMachine = setup({
  types: {
    context: {} as PlegContext,
    input: {} as PlegInput,
  },
  actors: {
    relist: fromPromise<RelistOutput, RelistInput>(async () => {
      throw new Error('actor relist was not provided');
    }),
  },
  actions: {
    recordRelist: enqueueActions(({ context, event, enqueue, system }) => {
      const output = doneOutput<RelistOutput | undefined>(event);
      if (!output) return;
      const pods = output.unchanged || !output.pods ? context.pods : output.pods;
      const reportable = output.unchanged ? [] : reportableEvents(diffRelists(context.pods, pods));
      const events = reportable.length > PLEG_CHANNEL_CAPACITY ? reportable.slice(0, PLEG_CHANNEL_CAPACITY) : reportable;
      const discarded = reportable.length - events.length;
      const kept = new Set(events.map((e) => e.podUid));
      const unseen = [...new Set(reportable.slice(events.length).map((e) => e.podUid))].filter((uid) => !kept.has(uid)).sort();
      const running = output.unchanged ? context.runningPodUids : runningPodUids(pods);
      const runningChanged = !sameUids(running, context.runningPodUids);
      enqueue.assign({
        pods,
        runningPodUids: running,
        digest: output.unchanged ? context.digest : output.digest ?? null,
        lastRelistAtMs: output.observedAtMs,
        lastRelistDurationMs: output.durationMs ?? context.lastRelistDurationMs,
        relistCount: context.relistCount + 1,
        lastError: null,
        discardedEvents: context.discardedEvents + discarded,
      });
      if (events.length > 0 || runningChanged) {
        const dead = deadCounts(pods, events);
        enqueue(sendParent({
          type: 'pleg.events', events, observedAtMs: output.observedAtMs,
          ...(runningChanged ? { runningPodUids: running } : {}),
          ...(discarded > 0 ? { discarded, discardedPodUids: unseen } : {}),
          ...(Object.keys(dead).length > 0 ? { deadCounts: dead } : {}),
        } satisfies PlegEventsEvent));
      }
      // Cluster mode: the first relist makes the PLEG healthy for the node's Ready condition.
      if (context.relistCount === 0) {
        // nodeStatus runs in cluster mode only.
        sendToSystemIfRunning(enqueue, system, 'nodeStatus', { type: 'node.pleg.health', healthy: true, observedAtMs: output.observedAtMs });
      }
    }),
    recordRelistError: assign({ lastError: ({ event }) => effectError(event) }),
  },
  delays: {
    relistPeriod: ({ context }) => context.relistPeriodMs,
  },
}).createMachine({
  id: 'pleg',
  context: ({ input }) => ({
    relistPeriodMs: input.relistPeriodMs ?? 1000,
    pods: [],
    runningPodUids: [],
    digest: null,
    lastRelistAtMs: null,
    lastRelistDurationMs: null,
    relistCount: 0,
    lastError: null,
    discardedEvents: 0,
  }),
  initial: 'relisting',
  states: {
    relisting: {
      meta: { description: 'lists every sandbox and container and compares them with the last relist' },
      invoke: {
        id: 'relist',
        src: 'relist',
        input: ({ context }) => ({ previousDigest: context.digest }),
        onDone: { target: 'waiting', actions: 'recordRelist' },
        onError: { target: 'waiting', actions: 'recordRelistError' },
      },
    },
    waiting: {
      meta: { description: 'relistPeriod between the end of one relist and the start of the next' },
      after: { relistPeriod: { target: 'relisting' } },
    },
  },
});
