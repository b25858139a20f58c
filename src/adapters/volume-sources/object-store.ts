/**
 * Where the ConfigMap and Secret managers take objects from (Go: pkg/kubelet/util/manager Store):
 * one implementation per configMapAndSecretChangeDetectionStrategy. References are counted per
 * object (namespace/name) over the registered pods; `get` answers undefined for an object that does
 * not exist.
 */
import { KubeletError } from '../../domain/errors.js';
import type { VolumeApi, VolumeObject, VolumeObjectResource } from '../../ports/apiserver.js';

export interface ObjectStore {
  /** A registered pod refers to the object (Go's AddReference, called from RegisterPod: must not block). */
  addReference(namespace: string, name: string): void;
  deleteReference(namespace: string, name: string): void;
  get(namespace: string, name: string): Promise<VolumeObject | undefined>;
  /** Stops every watch and timer. */
  close(): void;
}

export const objectKey = (namespace: string, name: string): string => `${namespace}/${name}`;

/** Go's "object %q/%q not registered": Cache and Watch only serve objects a registered pod refers to. */
export function notRegistered(resource: VolumeObjectResource, namespace: string, name: string): KubeletError {
  return new KubeletError('KLT_ERR_VOLUME_SOURCE', `${resource} ${JSON.stringify(namespace)}/${JSON.stringify(name)} not registered: no registered pod refers to it`);
}

/** The `Get` strategy (Go's simple managers): a GET on every read, no references kept. */
export function directStore(api: Pick<VolumeApi, 'getObject'>, resource: VolumeObjectResource): ObjectStore {
  return {
    addReference: () => {},
    deleteReference: () => {},
    get: (namespace, name) => api.getObject(resource, namespace, name),
    close: () => {},
  };
}

/**
 * resourceVersion as the API's versioner reads it (an unsigned integer; anything else is 0), so a
 * fetched object older than the one held is not taken (Go's isObjectOlder).
 */
export function isOlder(fetched: VolumeObject, held: VolumeObject | undefined): boolean {
  if (held === undefined) return false;
  return resourceVersionOf(fetched) < resourceVersionOf(held);
}

function resourceVersionOf(object: VolumeObject): bigint {
  const rv = object.metadata.resourceVersion ?? '';
  return /^[0-9]+$/.test(rv) ? BigInt(rv) : 0n;
}
