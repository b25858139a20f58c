/**
 * A keyed cache kept by the reflector (reflector.ts), as Go's informer keeps its store: each list
 * replaces it, each watch event sets or deletes one entry. Only what the reader needs of each object
 * is kept (`valueOf`). A failed list or watch is the reflector's to log and retry; readers that must
 * not act on an empty cache wait on `hasSynced`.
 * - A long list is valued a chunk per turn and swapped in whole at its end, so thousands of objects
 *   neither hold the event loop nor show a half-replaced cache; the watch opens after the swap.
 * - With `groupOf` the entries are indexed too (Go's namespace index): a reader of one group reads
 *   only it, and each group's version changes with its own entries only, so what a reader derived
 *   from one group stays good while others change.
 */
import type { KubeObject } from '../../ports/apiserver.js';
import { startReflector, type ReflectorOptions } from './reflector.js';

/** Objects valued per turn while a list is replaced: client-go's reflector pages its lists by as many (its defaultPageSize, 500). */
export const REPLACE_CHUNK_ITEMS = 500;

/** One group's entries, by their key within the group. */
export interface ReflectedGroup<V> {
  /** Changes whenever an entry of this group is set or deleted, or a list replaces the cache; never repeats for a non-empty group. */
  readonly version: number;
  readonly entries: ReadonlyMap<string, V>;
}

export interface ReflectedMap<V> {
  /** The entries now, by key. */
  readonly entries: ReadonlyMap<string, V>;
  /** One group's entries now (without `groupOf`, or for a group with none, an empty group of version 0). */
  group(name: string): ReflectedGroup<V>;
  /** Whether a list has answered at least once. */
  hasSynced(): boolean;
  /** Stops the list/watch. */
  stop(): void;
}

export type ReflectedMapOptions<V> = Omit<ReflectorOptions<KubeObject>, 'onReplaced' | 'onChanged' | 'onFailed'> & {
  keyOf: (object: KubeObject) => string;
  valueOf: (object: KubeObject) => V;
  /** The group an object is indexed in and its key there (a namespace and a name). */
  groupOf?: (object: KubeObject) => { group: string; key: string };
};

const EMPTY_GROUP: ReflectedGroup<never> = { version: 0, entries: new Map<string, never>() };

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Group<V> { version: number; entries: Map<string, V> }

export function startReflectedMap<V>(opts: ReflectedMapOptions<V>): ReflectedMap<V> {
  const { keyOf, valueOf, groupOf, ...reflector } = opts;
  const entries = new Map<string, V>();
  let groups = new Map<string, Group<V>>();
  /** The last version handed out: versions count up across groups so none is reused. */
  let versions = 0;
  let synced = false;
  let stopped = false;

  function setIn(into: Map<string, Group<V>>, object: KubeObject, value: V): void {
    if (!groupOf) return;
    const { group, key } = groupOf(object);
    let found = into.get(group);
    if (!found) into.set(group, (found = { version: 0, entries: new Map() }));
    found.entries.set(key, value);
    found.version = ++versions;
  }

  function deleteIn(object: KubeObject): void {
    if (!groupOf) return;
    const { group, key } = groupOf(object);
    const found = groups.get(group);
    if (!found?.entries.delete(key)) return;
    if (found.entries.size === 0) groups.delete(group);
    else found.version = ++versions;
  }

  async function replace(items: KubeObject[]): Promise<void> {
    const valued: [KubeObject, V][] = [];
    for (let i = 0; i < items.length; i++) {
      if (i > 0 && i % REPLACE_CHUNK_ITEMS === 0) {
        await nextTurn();
        if (stopped) return;
      }
      valued.push([items[i]!, valueOf(items[i]!)]);
    }
    entries.clear();
    const regrouped = new Map<string, Group<V>>();
    for (const [object, value] of valued) {
      entries.set(keyOf(object), value);
      setIn(regrouped, object, value);
    }
    groups = regrouped;
    synced = true;
  }

  const running = startReflector<KubeObject>({
    ...reflector,
    onReplaced: replace,
    onChanged: (type, object) => {
      if (type === 'DELETED') {
        entries.delete(keyOf(object));
        deleteIn(object);
        return;
      }
      const value = valueOf(object);
      entries.set(keyOf(object), value);
      setIn(groups, object, value);
    },
    onFailed: () => {},
  });
  return {
    entries,
    group: (name) => groups.get(name) ?? EMPTY_GROUP,
    hasSynced: () => synced,
    stop: () => {
      stopped = true;
      running.stop();
    },
  };
}
