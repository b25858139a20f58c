/**
 * The `Watch` strategy, the default (Go: pkg/kubelet/util/manager/watch_based_manager.go
 * objectCache): one list/watch per object a registered pod refers to, shared by every pod that
 * refers to it, and reads answered from what the watch holds.
 * - The first reference starts the watch; the last one gone stops it (reference counts over pods).
 * - A read waits for the watch's first list, at most a second (Go polls hasSynced for 1 s), then
 *   answers from the cache; it never makes a request of its own.
 * - An object seen `immutable: true` is not watched any more: its watch stops and reads keep
 *   answering the last content (Go stops the reflector and keeps the store).
 * - A watch nobody read for `maxIdleMs` (Go: 5 × the sync frequency, at least a minute) is stopped,
 *   checked every minute, and started again by the next read (Go's startRecycleIdleWatch and
 *   restartReflectorIfNeeded), so objects used only by env vars do not hold a watch forever.
 * Differs from Go: an object's idle time counts from its first reference, not from the zero time;
 * a read that times out while the list fails rejects with the list's error (Go: "timed out
 * waiting for the condition").
 */
import { KubeletError } from '../../domain/errors.js';
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { VolumeApi, VolumeObject, VolumeObjectResource } from '../../ports/apiserver.js';
import { startReflector, type Reflector } from '../apiserver/reflector.js';
import { notRegistered, objectKey, type ObjectStore } from './object-store.js';

export const SYNC_TIMEOUT_MS = 1_000;
export const IDLE_CHECK_PERIOD_MS = 60_000;
/** Go's minIdleTime. */
export const MIN_IDLE_MS = 60_000;
/** 5 × the default syncFrequency (1 min). */
export const DEFAULT_MAX_IDLE_MS = 5 * 60_000;

export interface WatchStoreOptions {
  api: Pick<VolumeApi, 'listObject' | 'watchObject'>;
  resource: VolumeObjectResource;
  clock: Clock;
  logger: Logger;
  /** Raised to MIN_IDLE_MS if lower. */
  maxIdleMs?: number;
}

interface Waiter { resolve: () => void; reject: (err: unknown) => void; timer: unknown }

interface Item {
  namespace: string;
  name: string;
  refCount: number;
  /** null: not watching (stopped as idle or immutable). */
  reflector: Reflector | null;
  /** A list has answered since the watch (re)started (or the object is immutable). */
  synced: boolean;
  object: VolumeObject | undefined;
  immutable: boolean;
  lastAccessMs: number;
  lastError: unknown;
  waiters: Set<Waiter>;
}

export function watchStore(opts: WatchStoreOptions): ObjectStore {
  const { api, resource, clock, logger } = opts;
  const maxIdleMs = Math.max(opts.maxIdleMs ?? DEFAULT_MAX_IDLE_MS, MIN_IDLE_MS);
  const items = new Map<string, Item>();
  let closed = false;

  function wake(item: Item): void {
    for (const w of item.waiters) {
      clock.clearTimeout(w.timer);
      w.resolve();
    }
    item.waiters.clear();
  }

  function start(item: Item): void {
    const { namespace, name } = item;
    // Go's NewObjectCache: one reflector per object, listing and watching by metadata.name.
    item.reflector = startReflector<VolumeObject>({
      list: () => api.listObject(resource, namespace, name),
      watch: (w) => api.watchObject(resource, { namespace, name, ...w }),
      clock, logger, what: `the ${resource} object`, logFields: { resource, namespace, name },
      onReplaced: (objects) => {
        item.object = objects.find((o) => o.metadata.name === name);
        item.synced = true;
        item.lastError = undefined;
        wake(item);
      },
      onChanged: (type, object) => {
        if (object.metadata.name === name) item.object = type === 'DELETED' ? undefined : object;
      },
      onFailed: (err) => {
        item.lastError = err;
      },
    });
  }

  function stop(item: Item): boolean {
    if (item.reflector === null) return false;
    item.reflector.stop();
    item.reflector = null;
    if (!item.immutable) item.synced = false;
    return true;
  }

  function syncFailure(item: Item): KubeletError {
    const what = `failed to sync the ${resource} cache for ${item.namespace}/${item.name}`;
    const last = item.lastError;
    if (last instanceof KubeletError) return new KubeletError(last.code, `${what}: ${last.message}`, { cause: last, retryable: last.retryable });
    return new KubeletError('KLT_ERR_API_TIMEOUT', `${what}: no list within ${SYNC_TIMEOUT_MS}ms`, { cause: last, retryable: true });
  }

  function synced(item: Item): Promise<void> {
    if (item.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: clock.setTimeout(() => {
          item.waiters.delete(waiter);
          reject(syncFailure(item));
        }, SYNC_TIMEOUT_MS),
      };
      item.waiters.add(waiter);
    });
  }

  let idleTimer: unknown = clock.setTimeout(function recycle() {
    const now = clock.now();
    for (const [key, item] of items) {
      if (item.synced && now > item.lastAccessMs + maxIdleMs && stop(item)) {
        logger.debug({ resource, objectKey: key, maxIdleMs }, 'Not read for a long time, stopped watching for changes');
      }
    }
    idleTimer = clock.setTimeout(recycle, IDLE_CHECK_PERIOD_MS);
  }, IDLE_CHECK_PERIOD_MS);

  return {
    addReference(namespace, name) {
      if (closed) return;
      const key = objectKey(namespace, name);
      let item = items.get(key);
      if (item === undefined) {
        item = { namespace, name, refCount: 0, reflector: null, synced: false, object: undefined, immutable: false, lastAccessMs: clock.now(), lastError: undefined, waiters: new Set() };
        items.set(key, item);
        start(item);
      }
      item.refCount++;
    },
    deleteReference(namespace, name) {
      const key = objectKey(namespace, name);
      const item = items.get(key);
      if (item === undefined) return;
      if (--item.refCount > 0) return;
      stop(item);
      items.delete(key);
    },
    async get(namespace, name) {
      const item = items.get(objectKey(namespace, name));
      if (item === undefined) throw notRegistered(resource, namespace, name);
      item.lastAccessMs = clock.now();
      if (item.reflector === null && !item.immutable && !closed) start(item);
      await synced(item);
      const object = item.object;
      if (object?.immutable === true) {
        item.immutable = true;
        if (stop(item)) logger.debug({ resource, namespace, name }, 'Stopped watching for changes, the object is immutable');
      }
      return object;
    },
    close() {
      closed = true;
      clock.clearTimeout(idleTimer);
      for (const item of items.values()) {
        stop(item);
        for (const w of item.waiters) {
          clock.clearTimeout(w.timer);
          w.reject(new KubeletError('KLT_ERR_VOLUME_SOURCE', `${resource} ${item.namespace}/${item.name}: the manager was closed`));
        }
      }
      items.clear();
    },
  };
}
