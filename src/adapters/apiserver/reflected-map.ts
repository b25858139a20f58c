/**
 * A keyed cache kept by the reflector (reflector.ts), as Go's informer keeps its store: each list
 * replaces it, each watch event sets or deletes one entry. Only what the reader needs of each object
 * is kept (`valueOf`). A failed list or watch is the reflector's to log and retry; readers that must
 * not act on an empty cache wait on `hasSynced`.
 */
import type { KubeObject } from '../../ports/apiserver.js';
import { startReflector, type ReflectorOptions } from './reflector.js';

export interface ReflectedMap<V> {
  /** The entries now, by key. */
  readonly entries: ReadonlyMap<string, V>;
  /** Whether a list has answered at least once. */
  hasSynced(): boolean;
  /** Stops the list/watch. */
  stop(): void;
}

export type ReflectedMapOptions<V> = Omit<ReflectorOptions<KubeObject>, 'onReplaced' | 'onChanged' | 'onFailed'> & {
  keyOf: (object: KubeObject) => string;
  valueOf: (object: KubeObject) => V;
};

export function startReflectedMap<V>(opts: ReflectedMapOptions<V>): ReflectedMap<V> {
  const { keyOf, valueOf, ...reflector } = opts;
  const entries = new Map<string, V>();
  let synced = false;
  const running = startReflector<KubeObject>({
    ...reflector,
    onReplaced: (items) => {
      entries.clear();
      for (const item of items) entries.set(keyOf(item), valueOf(item));
      synced = true;
    },
    onChanged: (type, object) => {
      if (type === 'DELETED') entries.delete(keyOf(object));
      else entries.set(keyOf(object), valueOf(object));
    },
    onFailed: () => {},
  });
  return { entries, hasSynced: () => synced, stop: () => running.stop() };
}
