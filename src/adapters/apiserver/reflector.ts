/**
 * A list/watch loop over one list (client-go's Reflector.ListAndWatch): it lists, hands the items
 * over, then watches from the list's resourceVersion. What is listed (one ConfigMap or Secret by
 * name, every Service) is the caller's: it gives the list and watch calls.
 * - ADDED, MODIFIED and DELETED are handed over one by one; bookmarks only move the resourceVersion
 *   forward.
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
import type { KubeObject, WatchEventType, WatchHandle } from '../../ports/apiserver.js';

export const REFLECTOR_BACKOFF_INITIAL_MS = 800;
export const REFLECTOR_BACKOFF_MAX_MS = 30_000;
export const VERY_SHORT_WATCH_MS = 1_000;

export interface ReflectorOptions<T extends KubeObject> {
  list: () => Promise<{ resourceVersion: string; items: T[] }>;
  watch: (opts: { resourceVersion: string; onEvent: (type: WatchEventType, object: T) => void; onDone: (err: unknown) => void }) => Promise<WatchHandle>;
  clock: Clock;
  logger: Logger;
  /** What is listed, for the log (`what` and its fields). */
  what: string;
  logFields: Record<string, unknown>;
  /** A list answered: every item, in place of what was known. The watch opens once it has returned, or its promise settled. */
  onReplaced: (items: T[]) => void | Promise<void>;
  /** A watch event changed one item. */
  onChanged: (type: 'ADDED' | 'MODIFIED' | 'DELETED', object: T) => void;
  /** A list or watch failed (kept for the reader that times out waiting for the first list). */
  onFailed: (err: unknown) => void;
}

export interface Reflector {
  stop(): void;
}

export function startReflector<T extends KubeObject>(opts: ReflectorOptions<T>): Reflector {
  const { clock, logger, what } = opts;
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
    logger.warn({ err, ...opts.logFields }, message);
    later(() => void list());
  }

  async function list(): Promise<void> {
    let answer;
    try {
      answer = await opts.list();
    } catch (err) {
      if (!stopped) failed(err, `Failed to list ${what}, listing again after a back-off`);
      return;
    }
    if (stopped) return;
    resourceVersion = answer.resourceVersion;
    await opts.onReplaced(answer.items);
    if (stopped) return;
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
        failed(err, `The watch of ${what} broke, listing again after a back-off`);
      } else if (events === 0 && clock.now() - startedAtMs < VERY_SHORT_WATCH_MS) {
        later(() => void watch());
      } else {
        if (clock.now() - startedAtMs >= VERY_SHORT_WATCH_MS) failures = 0;
        void watch();
      }
    };
    const onEvent = (type: WatchEventType, object: T) => {
      if (!current()) return;
      if (type === 'ERROR') {
        const code = (object as { code?: unknown }).code;
        end(new KubeletError(code === 410 ? 'KLT_ERR_API_GONE' : 'KLT_ERR_API_FAILED', `watch ${what}: an ERROR event (${String(code)})`));
        return;
      }
      events++;
      failures = 0;
      resourceVersion = object.metadata.resourceVersion ?? resourceVersion;
      if (type === 'BOOKMARK') return;
      opts.onChanged(type, object);
    };
    let opened: WatchHandle;
    try {
      opened = await opts.watch({ resourceVersion, onEvent, onDone: end });
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
