/**
 * A list/watch loop for one ConfigMap or Secret (Go: the reflector NewObjectCache starts per object
 * in watch_based_manager.go, over client-go's Reflector.ListAndWatch with the field selector
 * metadata.name=<name>): it lists, hands the object (or its absence) over, then watches from the
 * list's resourceVersion.
 * - ADDED and MODIFIED replace the object, DELETED removes it; bookmarks only move the
 *   resourceVersion forward.
 * - A watch the server ends cleanly (its timeout) is resumed at once from the last resourceVersion,
 *   unless it ended within a second without an event (Go's "very short watch"), which is resumed
 *   after the back-off.
 * - A failed list, a watch that cannot be opened, or one that breaks (an error, an ERROR event,
 *   410 Gone) lists again after the back-off: 800 ms doubling to 30 s, as the reflector's, reset by
 *   a watch that delivers an event or runs longer than a second. No jitter (the clock is injected).
 * Never logs an object: a Secret's values must not reach the log.
 */
import { KubeletError } from '../../domain/errors.js';
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { VolumeApi, VolumeObject, VolumeObjectResource, WatchEventType, WatchHandle } from '../../ports/apiserver.js';

export const REFLECTOR_BACKOFF_INITIAL_MS = 800;
export const REFLECTOR_BACKOFF_MAX_MS = 30_000;
export const VERY_SHORT_WATCH_MS = 1_000;

export interface ObjectReflectorOptions {
  api: Pick<VolumeApi, 'listObject' | 'watchObject'>;
  resource: VolumeObjectResource;
  namespace: string;
  name: string;
  clock: Clock;
  logger: Logger;
  /** A list answered: the object, or undefined when it does not exist. */
  onReplaced: (object: VolumeObject | undefined) => void;
  /** A watch event changed the object (undefined: deleted). */
  onChanged: (object: VolumeObject | undefined) => void;
  /** A list or watch failed (kept for the reader that times out waiting for the first list). */
  onFailed: (err: unknown) => void;
}

export interface ObjectReflector {
  stop(): void;
}

export function startObjectReflector(opts: ObjectReflectorOptions): ObjectReflector {
  const { api, resource, namespace, name, clock, logger } = opts;
  let stopped = false;
  let failures = 0;
  let resourceVersion = '';
  let timer: unknown = null;
  let handle: WatchHandle | null = null;
  /** Bumped when a watch ends or is replaced: callbacks of an older watch are ignored. */
  let epoch = 0;

  function later(then: () => void): void {
    const delay = Math.min(REFLECTOR_BACKOFF_INITIAL_MS * 2 ** failures, REFLECTOR_BACKOFF_MAX_MS);
    failures++;
    timer = clock.setTimeout(() => {
      timer = null;
      if (!stopped) then();
    }, delay);
  }

  function failed(err: unknown, message: string): void {
    opts.onFailed(err);
    logger.warn({ err, resource, namespace, name }, message);
    later(() => void list());
  }

  async function list(): Promise<void> {
    let answer;
    try {
      answer = await api.listObject(resource, namespace, name);
    } catch (err) {
      if (!stopped) failed(err, 'Failed to list the object, listing again after a back-off');
      return;
    }
    if (stopped) return;
    resourceVersion = answer.resourceVersion;
    opts.onReplaced(answer.items.find((item) => item.metadata.name === name));
    void watch();
  }

  async function watch(): Promise<void> {
    const mine = ++epoch;
    const startedAtMs = clock.now();
    let events = 0;
    const current = () => mine === epoch && !stopped;
    const end = (err: unknown) => {
      if (!current()) return;
      epoch++;
      const ended = handle;
      handle = null;
      ended?.stop();
      if (err !== null) {
        failed(err, 'The object\'s watch broke, listing again after a back-off');
      } else if (events === 0 && clock.now() - startedAtMs < VERY_SHORT_WATCH_MS) {
        later(() => void watch());
      } else {
        if (clock.now() - startedAtMs >= VERY_SHORT_WATCH_MS) failures = 0;
        void watch();
      }
    };
    const onEvent = (type: WatchEventType, object: VolumeObject) => {
      if (!current()) return;
      if (type === 'ERROR') {
        const code = (object as { code?: unknown }).code;
        end(new KubeletError(code === 410 ? 'KLT_ERR_API_GONE' : 'KLT_ERR_API_FAILED', `watch ${resource}: an ERROR event (${String(code)})`));
        return;
      }
      events++;
      failures = 0;
      resourceVersion = object.metadata.resourceVersion ?? resourceVersion;
      if (type === 'BOOKMARK' || object.metadata.name !== name) return;
      opts.onChanged(type === 'DELETED' ? undefined : object);
    };
    let opened: WatchHandle;
    try {
      opened = await api.watchObject(resource, { namespace, name, resourceVersion, onEvent, onDone: end });
    } catch (err) {
      end(err);
      return;
    }
    if (current()) handle = opened;
    else opened.stop();
  }

  void list();
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      epoch++;
      if (timer !== null) clock.clearTimeout(timer);
      handle?.stop();
      handle = null;
    },
  };
}
