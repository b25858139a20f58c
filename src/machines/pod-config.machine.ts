/**
 * Pod config (Go's PodConfig, pkg/kubelet/config/config.go, mode PodConfigNotificationIncremental):
 * merges the pod sources into ADD / UPDATE / DELETE / REMOVE / RECONCILE updates for its parent,
 * the syncLoop.
 *
 * Contract:
 * - Sources are invoked callback actors, `fileSource` (staticPodPath) and `httpSource`
 *   (staticPodURL); a source whose path or URL is empty is not started and not waited for (Go
 *   registers only configured sources). Each sends `pod.source.snapshot` with every pod it has now
 *   and the manifests it had to skip, or `pod.source.failed` when it could not be read at all (the
 *   pods it gave before stay, as in Go).
 * - Each snapshot goes through the pure merge (domain/pod-config/merge.ts); every resulting
 *   operation goes to the parent as `pod.config.updated` `{ op, source, pods }`, in Go's order.
 * - `pod.config.sourcesReady` goes to the parent once, when every configured source has delivered a
 *   snapshot (at once when none is configured). A failed read does not count, as in Go.
 * - `pod.manifest.rejected` `{ source, origin, reason }` goes to the parent when a manifest is
 *   rejected for the first time or for a new reason. Go logs the error again at every poll (20 s);
 *   we report once per change, and again only after the manifest was accepted or gone meanwhile.
 * - `pod.manifest.cleared` `{ source, origin }` goes to the parent when a manifest reported rejected
 *   is not rejected by the source's latest read any more (fixed, or gone), so the parent's list of
 *   rejected manifests holds only what the last reads rejected.
 * - Each source region shows whether its last read worked (`healthy`) or not (`failing`); a source
 *   actor that crashes leaves its region in `crashed` (its pods stay; the process log has why).
 * - Messages to the parent leave through two named actions, `sendOutbox` (what the event being
 *   handled produced, kept in `context.outbox` until sent) and `announceSourcesReady`, so a test or
 *   a graph traversal without a parent can replace them.
 * Pure: no I/O, no clock reads; times arrive on events (`observedAtMs`, stamped by the sources).
 */
import { assertEvent, assign, enqueueActions, fromCallback, sendParent, setup } from 'xstate';
import { areSourcesReady, initialPodConfigState, mergeSnapshot, type PodConfigState } from '../domain/pod-config/merge.js';
import type { PodOperation, PodSourceName, RejectedManifest } from '../domain/pod-config/types.js';
import type { Pod } from '../domain/pod/types.js';

export interface PodConfigInput {
  nodeName: string;
  /** A directory of manifests or one manifest file; empty: no file source. */
  staticPodPath: string;
  fileCheckFrequencyMs: number;
  /** Empty: no http source. */
  staticPodURL: string;
  staticPodURLHeader: Record<string, string[]>;
  httpCheckFrequencyMs: number;
  /** Cluster mode: list and watch the API server's pods bound to this node. */
  apiSource?: boolean;
}

export interface ApiSourceInput {
  nodeName: string;
}

export interface FileSourceInput {
  nodeName: string;
  path: string;
  periodMs: number;
}

export interface HttpSourceInput {
  nodeName: string;
  url: string;
  /** Named as in KubeletConfiguration so the journal's redaction masks its values. */
  staticPodURLHeader: Record<string, string[]>;
  periodMs: number;
}

/** What the source actors send to this machine. */
export type PodSourceEvent =
  | { type: 'pod.source.snapshot'; source: PodSourceName; pods: Pod[]; rejected: RejectedManifest[]; observedAtMs: number }
  | { type: 'pod.source.failed'; source: PodSourceName; origin: string; reason: string; observedAtMs: number }
  /** Mirror pods the API source saw (they never run; the status manager keeps them in step). */
  | { type: 'api.mirrorPods.observed'; pods: Pod[]; observedAtMs: number };

export type PodConfigEvent = PodSourceEvent;

/** What this machine sends to its parent. */
export type PodConfigOutputEvent =
  | { type: 'pod.config.updated'; op: PodOperation; source: PodSourceName; pods: Pod[] }
  | { type: 'pod.config.sourcesReady' }
  | { type: 'pod.manifest.rejected'; source: PodSourceName; origin: string; reason: string }
  | { type: 'pod.manifest.cleared'; source: PodSourceName; origin: string }
  | { type: 'api.mirrorPods.observed'; pods: Pod[]; observedAtMs: number };

export interface PodConfigContext {
  input: PodConfigInput;
  configuredSources: PodSourceName[];
  merge: PodConfigState;
  /** Per source, the rejections already reported: origin → reason. */
  rejected: Partial<Record<PodSourceName, Record<string, string>>>;
  /** Messages for the parent from the event being handled; empty between events. */
  outbox: PodConfigOutputEvent[];
}

/** The effectful actors replay makes inert. */
export const POD_CONFIG_EFFECTS = ['fileSource', 'httpSource', 'apiSource'] as const;

const notProvided = <TInput>(name: string) =>
  fromCallback<PodSourceEvent, TInput>(() => {
    throw new Error(`actor ${name} was not provided`);
  });

function configuredSources(input: PodConfigInput): PodSourceName[] {
  const sources: PodSourceName[] = [];
  if (input.staticPodPath !== '') sources.push('file');
  if (input.staticPodURL !== '') sources.push('http');
  if (input.apiSource) sources.push('api');
  return sources;
}

type RejectionReport = Extract<PodConfigOutputEvent, { type: 'pod.manifest.rejected' | 'pod.manifest.cleared' }>;

/**
 * What changed in a source's rejections: those reported before and not rejected now (cleared), then
 * those not reported yet (a new origin, or a new reason for it).
 */
function rejectionChanges(source: PodSourceName, reported: Record<string, string>, now: Record<string, string>): RejectionReport[] {
  const cleared = Object.keys(reported)
    .filter((origin) => !(origin in now))
    .map((origin): RejectionReport => ({ type: 'pod.manifest.cleared', source, origin }));
  const rejected = Object.entries(now)
    .filter(([origin, reason]) => reported[origin] !== reason)
    .map(([origin, reason]): RejectionReport => ({ type: 'pod.manifest.rejected', source, origin, reason }));
  return [...cleared, ...rejected];
}

export const podConfigMachine = setup({
  types: {
    context: {} as PodConfigContext,
    events: {} as PodConfigEvent,
    input: {} as PodConfigInput,
  },
  actors: {
    fileSource: notProvided<FileSourceInput>('fileSource'),
    httpSource: notProvided<HttpSourceInput>('httpSource'),
    apiSource: notProvided<ApiSourceInput>('apiSource'),
  },
  guards: {
    isFileSourceConfigured: ({ context }) => context.configuredSources.includes('file'),
    isHttpSourceConfigured: ({ context }) => context.configuredSources.includes('http'),
    isFromFileSource: ({ event }) => 'source' in event && event.source === 'file',
    isFromHttpSource: ({ event }) => 'source' in event && event.source === 'http',
    isApiSourceConfigured: ({ context }) => context.configuredSources.includes('api'),
    isFromApiSource: ({ event }) => 'source' in event && event.source === 'api',
    areSourcesReady: ({ context }) => areSourcesReady(context.merge, context.configuredSources),
  },
  actions: {
    mergeSnapshot: assign(({ context, event }) => {
      assertEvent(event, 'pod.source.snapshot');
      const { state, updates } = mergeSnapshot(context.merge, event.source, event.pods, event.observedAtMs);
      const rejectedNow = Object.fromEntries(event.rejected.map((r) => [r.origin, r.reason]));
      const reports = rejectionChanges(event.source, context.rejected[event.source] ?? {}, rejectedNow);
      return {
        merge: state,
        rejected: { ...context.rejected, [event.source]: rejectedNow },
        outbox: [...updates.map((update) => ({ type: 'pod.config.updated' as const, ...update })), ...reports],
      };
    }),
    recordFailure: assign(({ context, event }) => {
      assertEvent(event, 'pod.source.failed');
      // The source's pods stay as they were; only the failure is recorded (and reported once). The
      // source's other rejections are cleared: a failed read says nothing of them any more.
      const rejectedNow = { [event.origin]: event.reason };
      return {
        rejected: { ...context.rejected, [event.source]: rejectedNow },
        outbox: rejectionChanges(event.source, context.rejected[event.source] ?? {}, rejectedNow),
      };
    }),
    /** Sends what the last merge or failure produced to the parent, in order. */
    sendOutbox: enqueueActions(({ context, enqueue }) => {
      for (const message of context.outbox) enqueue.sendParent(message);
      enqueue.assign({ outbox: [] });
    }),
    forwardMirrorPods: sendParent(({ event }) => event),
    announceSourcesReady: sendParent({ type: 'pod.config.sourcesReady' } satisfies PodConfigOutputEvent),
  },
}).createMachine({
  id: 'podConfig',
  type: 'parallel',
  context: ({ input }) => ({
    input,
    configuredSources: configuredSources(input),
    merge: initialPodConfigState(),
    rejected: {},
    outbox: [],
  }),
  states: {
    fileSource: {
      initial: 'starting',
      states: {
        starting: {
          always: [{ guard: 'isFileSourceConfigured', target: 'active' }, { target: 'notConfigured' }],
        },
        notConfigured: { meta: { description: 'no staticPodPath: no file source, not waited for' } },
        active: {
          meta: { description: 'reading staticPodPath every fileCheckFrequency and on every change' },
          invoke: {
            id: 'fileSource',
            src: 'fileSource',
            input: ({ context }): FileSourceInput => ({
              nodeName: context.input.nodeName,
              path: context.input.staticPodPath,
              periodMs: context.input.fileCheckFrequencyMs,
            }),
            onError: { target: 'crashed' },
          },
          initial: 'waitingForSnapshot',
          states: {
            waitingForSnapshot: {},
            healthy: {},
            failing: { meta: { description: 'the last read failed: the pods read before stay' } },
          },
          on: {
            'pod.source.snapshot': { guard: 'isFromFileSource', target: '.healthy', actions: ['mergeSnapshot', 'sendOutbox'] },
            'pod.source.failed': { guard: 'isFromFileSource', target: '.failing', actions: ['recordFailure', 'sendOutbox'] },
          },
        },
        crashed: { meta: { description: 'the file source actor failed; its pods stay as last read' } },
      },
    },
    httpSource: {
      initial: 'starting',
      states: {
        starting: {
          always: [{ guard: 'isHttpSourceConfigured', target: 'active' }, { target: 'notConfigured' }],
        },
        notConfigured: { meta: { description: 'no staticPodURL: no http source, not waited for' } },
        active: {
          meta: { description: 'fetching staticPodURL every httpCheckFrequency' },
          invoke: {
            id: 'httpSource',
            src: 'httpSource',
            input: ({ context }): HttpSourceInput => ({
              nodeName: context.input.nodeName,
              url: context.input.staticPodURL,
              staticPodURLHeader: context.input.staticPodURLHeader,
              periodMs: context.input.httpCheckFrequencyMs,
            }),
            onError: { target: 'crashed' },
          },
          initial: 'waitingForSnapshot',
          states: {
            waitingForSnapshot: {},
            healthy: {},
            failing: { meta: { description: 'the last fetch failed: the pods fetched before stay' } },
          },
          on: {
            'pod.source.snapshot': { guard: 'isFromHttpSource', target: '.healthy', actions: ['mergeSnapshot', 'sendOutbox'] },
            'pod.source.failed': { guard: 'isFromHttpSource', target: '.failing', actions: ['recordFailure', 'sendOutbox'] },
          },
        },
        crashed: { meta: { description: 'the http source actor failed; its pods stay as last fetched' } },
      },
    },
    apiSource: {
      initial: 'starting',
      states: {
        starting: {
          always: [{ guard: 'isApiSourceConfigured', target: 'active' }, { target: 'notConfigured' }],
        },
        notConfigured: { meta: { description: 'standalone: no API server, no api source' } },
        active: {
          meta: { description: 'listing and watching the pods bound to this node (fieldSelector spec.nodeName)' },
          invoke: {
            id: 'apiSource',
            src: 'apiSource',
            input: ({ context }): ApiSourceInput => ({ nodeName: context.input.nodeName }),
            onError: { target: 'crashed' },
          },
          initial: 'waitingForSnapshot',
          states: {
            waitingForSnapshot: {},
            healthy: {},
            failing: { meta: { description: 'the API server cannot be reached: the pods listed before stay' } },
          },
          on: {
            'pod.source.snapshot': { guard: 'isFromApiSource', target: '.healthy', actions: ['mergeSnapshot', 'sendOutbox'] },
            'pod.source.failed': { guard: 'isFromApiSource', target: '.failing', actions: ['recordFailure', 'sendOutbox'] },
            'api.mirrorPods.observed': { actions: 'forwardMirrorPods' },
          },
        },
        crashed: { meta: { description: 'the api source actor failed; its pods stay as last listed' } },
      },
    },
    readiness: {
      initial: 'waitingForSources',
      states: {
        waitingForSources: {
          meta: { description: 'housekeeping waits until every configured source has delivered once' },
          always: { guard: 'areSourcesReady', target: 'sourcesReady' },
        },
        sourcesReady: {
          entry: 'announceSourcesReady',
          meta: { description: 'every configured source has delivered a snapshot' },
        },
      },
    },
  },
});
