/**
 * The apiserver pod source (Go's config.NewSourceApiserver over a reflector, client-go
 * tools/cache/reflector.go ListAndWatch): pods with spec.nodeName = this node, listed once, then
 * watched from the list's resourceVersion.
 *
 * - Every change (a list, a watch event) sends the whole set to the pod config as
 *   `pod.source.snapshot` with source 'api' (the pod config merges snapshots), and the mirror
 *   pods, which are not pods to run, as `api.mirrorPods.observed` (for the status manager).
 * - A pod whose UID is not a safe path segment is not sent as a pod but as a rejection (by
 *   `namespace/name`, as the file source rejects a manifest), and logged when the set changes.
 * - Bookmarks only move the resourceVersion forward.
 * - A watch that ends cleanly (the server's timeout) is resumed at once from the last
 *   resourceVersion; one that fails, reports an ERROR event, or closes within a second without
 *   any event (Go's "very short watch") is resumed after a back-off; 410 Gone (as a watch ERROR
 *   event or as the watch's end) means the resourceVersion is too old: list again.
 * - A failed list keeps the last pods and is retried after the back-off. So an API server outage
 *   changes nothing for the pods running; when it is back, the resumed watch (or the relist)
 *   brings what happened meanwhile.
 * Back-off: 800 ms doubling to API_SOURCE_BACKOFF_MAX_MS, reset by a success. Differs from Go: a
 * lower cap than the reflector's (see the constant), no jitter (the clock is injected and replay
 * wants the same delays), and no paginated list.
 */
import { fromCallback } from 'xstate';
import { KubeletError } from '../../domain/errors.js';
import type { Pod } from '../../domain/pod/types.js';
import type { RejectedManifest } from '../../domain/pod-config/types.js';
import { applyPodChange, podToRunPerObject, viewApiPods } from '../../domain/status-manager/api-pod-snapshot.js';
import type { Logger } from '../../log.js';
import type { PodApi, WatchEventType, WatchHandle, KubeObject } from '../../ports/apiserver.js';
import type { Clock } from '../../ports/clock.js';
import type { ApiSourceInput, PodSourceEvent } from '../../machines/pod-config.machine.js';
import { podFromApi } from './api-objects.js';

export const API_SOURCE_BACKOFF_INITIAL_MS = 800;
/**
 * Go's reflector caps its back-off at 30 s, so a Go kubelet may pick up a pod created during an API
 * outage tens of seconds after the server returns (docs/FINDINGS.md). We cap at 4 s: a few requests
 * a second at most against a recovering server, and new pods run within seconds of its return.
 */
export const API_SOURCE_BACKOFF_MAX_MS = 4_000;
export const VERY_SHORT_WATCH_MS = 1_000;

/** What the source sends. The pod config takes the snapshot once 'api' is one of its source names. */
export type ApiPodSourceEvent =
  | { type: 'pod.source.snapshot'; source: 'api'; pods: Pod[]; rejected: RejectedManifest[]; observedAtMs: number }
  | { type: 'api.mirrorPods.observed'; pods: Pod[]; observedAtMs: number };

export interface ApiPodSourceOptions {
  nodeName: string;
  listPods: PodApi['listPods'];
  watchPods: PodApi['watchPods'];
  clock: Clock;
  logger: Logger;
  sendBack: (event: ApiPodSourceEvent) => void;
}


function httpCode(err: unknown): number | undefined {
  if (err instanceof KubeletError && err.code === 'KLT_ERR_API_GONE') return 410;
  if (typeof err === 'object' && err !== null) {
    const { code, statusCode } = err as { code?: unknown; statusCode?: unknown };
    if (typeof code === 'number') return code;
    if (typeof statusCode === 'number') return statusCode;
  }
  return undefined;
}

const isGone = (err: unknown): boolean => httpCode(err) === 410;

const sameObjects = (a: readonly object[], b: readonly object[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** Runs the list/watch loop until the returned function is called. */
export function runApiPodSource(opts: ApiPodSourceOptions): () => void {
  const { nodeName, clock, logger } = opts;
  let pods = new Map<string, Pod>();
  let resourceVersion = '';
  let stopped = false;
  let failures = 0;
  let retryTimer: unknown = null;
  let handle: WatchHandle | null = null;
  /** Bumped when a watch is replaced or abandoned: callbacks of an older watch are ignored. */
  let watchEpoch = 0;

  // A watch event changes one pod; the other pods of the snapshot it sends are the very objects
  // sent before, which the pod config compares by identity.
  const podToRunOnce = podToRunPerObject();

  // What was last logged as refused: logged again only when it changes, not at every watch event.
  let lastRefused = '';
  // The mirror pods last sent: sent again only when one of them changed, came or went. Each watch
  // event delivers a snapshot, and an unchanged mirror pod is the very object sent before; the status
  // manager re-checks every pod's status on each observation, for nothing when no mirror changed.
  let lastMirrors: readonly Pod[] | null = null;

  function deliver(): void {
    const observedAtMs = clock.now();
    const view = viewApiPods(pods.values(), podToRunOnce);
    const refused = JSON.stringify(view.refused);
    if (refused !== lastRefused && view.refused.length > 0) logger.warn({ refused: view.refused }, 'Refusing API pods whose UID is not a safe path segment');
    lastRefused = refused;
    opts.sendBack({ type: 'pod.source.snapshot', source: 'api', pods: view.pods, rejected: view.refused, observedAtMs });
    if (lastMirrors !== null && sameObjects(lastMirrors, view.mirrorPods)) return;
    lastMirrors = view.mirrorPods;
    opts.sendBack({ type: 'api.mirrorPods.observed', pods: view.mirrorPods, observedAtMs });
  }

  function backOff(then: () => void): void {
    const delay = Math.min(API_SOURCE_BACKOFF_INITIAL_MS * 2 ** failures, API_SOURCE_BACKOFF_MAX_MS);
    failures++;
    retryTimer = clock.setTimeout(() => {
      retryTimer = null;
      if (!stopped) then();
    }, delay);
  }

  async function list(): Promise<void> {
    let result;
    try {
      result = await opts.listPods({ nodeName });
    } catch (err) {
      if (stopped) return;
      logger.warn({ err, nodeName }, 'Failed to list pods from the API server, keeping the last pods');
      backOff(() => void list());
      return;
    }
    if (stopped) return;
    failures = 0;
    pods = new Map(result.items.map((item) => [item.metadata.uid ?? '', podFromApi(item)]));
    resourceVersion = result.resourceVersion;
    deliver();
    void watch();
  }

  async function watch(): Promise<void> {
    const epoch = ++watchEpoch;
    const startedAtMs = clock.now();
    let events = 0;
    let gone = false;
    let errorEvent: KubeObject | null = null;
    const current = () => epoch === watchEpoch && !stopped;
    const onEvent = (type: WatchEventType, object: KubeObject): void => {
      if (!current()) return;
      events++;
      switch (type) {
        case 'ADDED':
        case 'MODIFIED':
        case 'DELETED': {
          pods = applyPodChange(pods, { type, pod: podFromApi(object) });
          resourceVersion = object.metadata.resourceVersion ?? resourceVersion;
          failures = 0;
          deliver();
          return;
        }
        case 'BOOKMARK':
          resourceVersion = object.metadata.resourceVersion ?? resourceVersion;
          return;
        case 'ERROR':
          if (isGone(object)) gone = true;
          else errorEvent = object;
          return;
      }
    };
    // Go's reflector: a watch closed within a second with no event is an error ("very short
    // watch"), so a server or proxy that closes at once is not hammered.
    const isVeryShort = (): boolean => events === 0 && clock.now() - startedAtMs < VERY_SHORT_WATCH_MS;
    const onDone = (err: unknown): void => {
      if (!current()) return;
      watchEpoch++;
      handle = null;
      if (gone || isGone(err)) {
        logger.info({ resourceVersion }, 'Pod watch resourceVersion too old, listing again');
        void list();
      } else if ((err === null || err === undefined) && errorEvent === null && !isVeryShort()) {
        void watch();
      } else {
        logger.warn({ err, status: errorEvent, resourceVersion }, 'Pod watch ended with an error, resuming after back-off');
        backOff(() => void watch());
      }
    };
    try {
      const started = await opts.watchPods({ nodeName, resourceVersion, onEvent, onDone });
      if (!current()) {
        started.stop();
        return;
      }
      handle = started;
    } catch (err) {
      if (!current()) return;
      watchEpoch++;
      if (isGone(err)) {
        void list();
      } else {
        logger.warn({ err, resourceVersion }, 'Failed to watch pods, retrying after back-off');
        backOff(() => void watch());
      }
    }
  }

  void list();
  return () => {
    stopped = true;
    watchEpoch++;
    if (retryTimer !== null) clock.clearTimeout(retryTimer);
    handle?.stop();
    handle = null;
  };
}

export interface ApiPodSourceActorDeps {
  listPods: PodApi['listPods'];
  watchPods: PodApi['watchPods'];
  clock: Clock;
  logger: Logger;
}

/** The source as a callback actor, started with the node's name (once it is known). */
export function createApiPodSourceActor(deps: ApiPodSourceActorDeps) {
  // Typed as the pod config machine's slot for a source (the same as the file and http sources').
  return fromCallback<PodSourceEvent, ApiSourceInput>(({ input, sendBack }) =>
    runApiPodSource({ ...deps, nodeName: input.nodeName, sendBack: (event) => sendBack(event) }),
  );
}
