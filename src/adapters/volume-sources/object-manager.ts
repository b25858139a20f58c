/**
 * One manager for ConfigMaps and one for Secrets, both this generic one (Go: configmap.Manager and
 * secret.Manager over pkg/kubelet/util/manager cacheBasedManager): it keeps the registered pods and
 * turns their references into the store's reference counts, and decodes what the store answers.
 * - registerPod of a new pod adds a reference to every object it names; of a known pod (an update),
 *   adds the names it gained and drops those it lost (Go adds references only on a pod's first
 *   registration, to spare the API server).
 * - unregisterPod drops the pod's references.
 * The strategy picks the store: Watch (watch-store.ts), Cache (ttl-store.ts), Get (a GET per read).
 */
import { KubeletError } from '../../domain/errors.js';
import type { Pod } from '../../domain/pod/types.js';
import type { KeyedData } from '../../domain/volumes/sources.js';
import type { Logger } from '../../log.js';
import type { VolumeApi, VolumeObject, VolumeObjectResource } from '../../ports/apiserver.js';
import type { Clock } from '../../ports/clock.js';
import { turnIfLargeKeys } from '../volumes/large-payload.js';
import { configMapData, secretData } from './keyed-data.js';
import { directStore, type ObjectStore } from './object-store.js';
import { configMapNames, secretNames } from './references.js';
import { ttlStore } from './ttl-store.js';
import { watchStore } from './watch-store.js';

/** configMapAndSecretChangeDetectionStrategy. */
export type ChangeDetectionStrategy = 'Watch' | 'Cache' | 'Get';
export const CHANGE_DETECTION_STRATEGIES: readonly ChangeDetectionStrategy[] = ['Watch', 'Cache', 'Get'];

/** What differs between the ConfigMap and the Secret manager. */
export interface ObjectKind {
  resource: VolumeObjectResource;
  referencedNames: (pod: Pod) => Set<string>;
  decode: (object: VolumeObject) => KeyedData;
}

export const CONFIG_MAP_KIND: ObjectKind = { resource: 'configmaps', referencedNames: configMapNames, decode: configMapData };
export const SECRET_KIND: ObjectKind = { resource: 'secrets', referencedNames: secretNames, decode: secretData };

export interface ObjectManagerOptions {
  kind: ObjectKind;
  api: Pick<VolumeApi, 'getObject' | 'listObject' | 'watchObject'>;
  clock: Clock;
  logger: Logger;
  strategy: ChangeDetectionStrategy;
  /** Cache: how long a fetched object is served (default 1 min). */
  cacheTtlMs?: number;
  /** Watch: a watch not read for this long is stopped until the next read (default 5 min). */
  watchMaxIdleMs?: number;
}

export interface ObjectManager {
  /** undefined: the object does not exist. */
  get(namespace: string, name: string): Promise<KeyedData | undefined>;
  registerPod(pod: Pod): void;
  unregisterPod(podUid: string): void;
  close(): void;
}

export function createObjectManager(opts: ObjectManagerOptions): ObjectManager {
  const { kind } = opts;
  const logger = opts.logger.child({ resource: kind.resource, strategy: opts.strategy });
  const store = storeFor(opts, logger);
  /** Registered pods by uid: their namespace and the names they refer to. */
  const pods = new Map<string, { namespace: string; names: Set<string> }>();

  return {
    async get(namespace, name) {
      const object = await store.get(namespace, name);
      if (object === undefined) return undefined;
      // Reading a large object (parsing it, for a first read) was one step; decoding it is the next.
      await turnIfLargeKeys(object.data, object.binaryData, object.stringData);
      return kind.decode(object);
    },
    registerPod(pod) {
      const uid = pod.metadata.uid;
      const namespace = pod.metadata.namespace ?? '';
      const names = kind.referencedNames(pod);
      const prev = pods.get(uid);
      pods.set(uid, { namespace, names });
      for (const name of names) if (!prev?.names.has(name)) store.addReference(namespace, name);
      for (const name of prev?.names ?? []) if (!names.has(name)) store.deleteReference(prev!.namespace, name);
    },
    unregisterPod(podUid) {
      const prev = pods.get(podUid);
      if (prev === undefined) return;
      pods.delete(podUid);
      for (const name of prev.names) store.deleteReference(prev.namespace, name);
    },
    close() {
      store.close();
      pods.clear();
    },
  };
}

function storeFor(opts: ObjectManagerOptions, logger: Logger): ObjectStore {
  const { api, clock, kind: { resource } } = opts;
  switch (opts.strategy) {
    case 'Watch': return watchStore({ api, resource, clock, logger, ...(opts.watchMaxIdleMs === undefined ? {} : { maxIdleMs: opts.watchMaxIdleMs }) });
    case 'Cache': return ttlStore({ api, resource, clock, logger, ...(opts.cacheTtlMs === undefined ? {} : { ttlMs: opts.cacheTtlMs }) });
    case 'Get': return directStore(api, resource);
    default: throw new KubeletError('KLT_ERR_CONFIG_INVALID', `unknown configMapAndSecretChangeDetectionStrategy ${JSON.stringify(opts.strategy)}: one of ${CHANGE_DETECTION_STRATEGIES.join(', ')}`);
  }
}
