/**
 * The `Cache` strategy (Go: pkg/kubelet/util/manager/cache_based_manager.go objectStore): an object
 * is fetched with a GET when read and kept for a TTL (Go's default: 1 minute).
 * - A pod registering a reference drops what is held for that object, so the pod's first read
 *   fetches it afresh (Go: AddReference sets the item's data to nil).
 * - A 404 is remembered as "absent" but, as in Go (the NotFound is kept as the item's error), an
 *   absent object is fetched again on every read.
 * - A periodic refresh of an object fetched before asks with resourceVersion=0 (the API server may
 *   answer from its cache, Go's FromApiserverCache); a fetched object older than the one held is
 *   not taken.
 * - A failed GET (other than 404) answers what is held, if anything; with nothing held, the error.
 * - Reads of one object are serialized, so concurrent reads make one GET (Go locks the item).
 * Differs from Go: the TTL is fixed (no node.alpha.kubernetes.io/ttl annotation).
 */
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { VolumeApi, VolumeObject, VolumeObjectResource } from '../../ports/apiserver.js';
import { isOlder, notRegistered, objectKey, type ObjectStore } from './object-store.js';

/** Go: configmap.defaultTTL and secret.defaultTTL. */
export const DEFAULT_OBJECT_TTL_MS = 60_000;

export interface TtlStoreOptions {
  api: Pick<VolumeApi, 'getObject'>;
  resource: VolumeObjectResource;
  clock: Pick<Clock, 'now'>;
  logger: Logger;
  ttlMs?: number;
}

/** What is held for one object since its last invalidation. */
interface Held {
  object: VolumeObject | undefined;
  absent: boolean;
  /** -Infinity: nothing fetched yet. */
  updatedAtMs: number;
  /** The read in progress: reads of one object run one after another. */
  queue: Promise<unknown>;
}

interface Item { refCount: number; held: Held | null }

export function ttlStore(opts: TtlStoreOptions): ObjectStore {
  const { api, resource, clock, logger } = opts;
  const ttlMs = opts.ttlMs ?? DEFAULT_OBJECT_TTL_MS;
  const items = new Map<string, Item>();

  async function read(held: Held, namespace: string, name: string): Promise<VolumeObject | undefined> {
    const fresh = clock.now() < held.updatedAtMs + ttlMs;
    if (fresh && !held.absent) return held.object;
    const refresh = held.object !== undefined;
    let fetched: VolumeObject | undefined;
    try {
      fetched = await api.getObject(resource, namespace, name, refresh ? { resourceVersion: '0' } : {});
    } catch (err) {
      if (!refresh && !held.absent) throw err;
      logger.warn({ err, resource, namespace, name }, 'Failed to refresh the object, serving the one held');
      return held.object;
    }
    if (fetched === undefined) {
      Object.assign(held, { object: undefined, absent: true, updatedAtMs: clock.now() });
    } else if (!isOlder(fetched, held.object)) {
      Object.assign(held, { object: fetched, absent: false, updatedAtMs: clock.now() });
    }
    return held.object;
  }

  return {
    addReference(namespace, name) {
      const key = objectKey(namespace, name);
      const item = items.get(key) ?? { refCount: 0, held: null };
      item.refCount++;
      item.held = null;
      items.set(key, item);
    },
    deleteReference(namespace, name) {
      const key = objectKey(namespace, name);
      const item = items.get(key);
      if (item === undefined) return;
      if (--item.refCount === 0) items.delete(key);
    },
    get(namespace, name) {
      const item = items.get(objectKey(namespace, name));
      if (item === undefined) return Promise.reject(notRegistered(resource, namespace, name));
      const held = (item.held ??= { object: undefined, absent: false, updatedAtMs: -Infinity, queue: Promise.resolve() });
      const result = held.queue.then(() => read(held, namespace, name));
      held.queue = result.catch(() => undefined);
      return result;
    },
    close: () => items.clear(),
  };
}
