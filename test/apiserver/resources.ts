/**
 * The resources the test API server serves, with the per-resource rules the Go registry applies
 * (scope, status subresource, generation, graceful deletion, field selectors).
 */
import type { ObjectMeta as KubeletObjectMeta } from '../../src/domain/api/common-types.js';
import { prepareConfigMapWrite, prepareSecretWrite } from './configmap-secret-rules.js';
import { prepareServiceWrite } from './service-rules.js';
import { coreEventFromEventsV1, eventsV1FromCoreEvent } from './event-conversion.js';

/** Where objects live in the store. events.k8s.io/v1 events share core/v1 `events` storage, as in Go. */
export type StorageKey =
  | 'namespaces' | 'nodes' | 'pods' | 'events' | 'leases' | 'certificatesigningrequests' | 'configmaps' | 'secrets' | 'serviceaccounts' | 'services' | 'runtimeclasses'
  | 'persistentvolumeclaims' | 'persistentvolumes';

export type KubeObject = Record<string, unknown> & {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
};

/** The metadata the kubelet knows, plus what only the server keeps (finalizers) and whatever a client sends. */
export type ObjectMeta = KubeletObjectMeta & { finalizers?: string[]; [key: string]: unknown };

export interface ResourceDef {
  group: string;
  version: string;
  /** Plural name as in the URL. */
  resource: string;
  kind: string;
  namespaced: boolean;
  storage: StorageKey;
  hasStatus: boolean;
  /** metadata.generation is set on create and bumped when spec changes (pods since 1.33; not nodes/leases). */
  hasGeneration: boolean;
  /** DELETE sets deletionTimestamp and waits for a grace-0 delete (pods bound to a node). */
  gracefulDelete: boolean;
  /** DELETE answers with the deleted object rather than a Success Status. */
  deleteReturnsObject: boolean;
  /** Field selector labels the Go registry accepts for this resource (besides metadata.name/namespace). */
  fields: readonly string[];
  /** Converts between this resource's representation and the stored one. */
  toStorage?: (obj: KubeObject) => KubeObject;
  fromStorage?: (obj: KubeObject) => KubeObject;
  /**
   * The resource's own write rules (Go's conversion, defaulting and validation), run in storage form
   * on every create (`old` undefined) and update: it normalises `obj` in place or throws an ApiError.
   */
  prepareWrite?: (obj: KubeObject, old: KubeObject | undefined) => void;
}

export function apiVersionOf(def: ResourceDef): string {
  return def.group === '' ? def.version : `${def.group}/${def.version}`;
}

const core = { group: '', version: 'v1' } as const;

export const RESOURCES: readonly ResourceDef[] = [
  { ...core, resource: 'namespaces', kind: 'Namespace', namespaced: false, storage: 'namespaces', hasStatus: true,
    hasGeneration: false, gracefulDelete: false, deleteReturnsObject: false, fields: ['status.phase'] },
  { ...core, resource: 'nodes', kind: 'Node', namespaced: false, storage: 'nodes', hasStatus: true,
    hasGeneration: false, gracefulDelete: false, deleteReturnsObject: false, fields: ['spec.unschedulable'] },
  { ...core, resource: 'pods', kind: 'Pod', namespaced: true, storage: 'pods', hasStatus: true,
    hasGeneration: true, gracefulDelete: true, deleteReturnsObject: true,
    fields: ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork',
      'status.phase', 'status.podIP', 'status.nominatedNodeName'] },
  { ...core, resource: 'events', kind: 'Event', namespaced: true, storage: 'events', hasStatus: false,
    hasGeneration: false, gracefulDelete: false, deleteReturnsObject: false,
    fields: ['involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid',
      'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason',
      'reportingComponent', 'source', 'type'] },
  { group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, storage: 'events',
    hasStatus: false, hasGeneration: false, gracefulDelete: false, deleteReturnsObject: false,
    fields: ['regarding.kind', 'regarding.namespace', 'regarding.name', 'regarding.uid', 'reason', 'type', 'reportingController'],
    toStorage: coreEventFromEventsV1, fromStorage: eventsV1FromCoreEvent },
  { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true, storage: 'leases',
    hasStatus: false, hasGeneration: false, gracefulDelete: false, deleteReturnsObject: false, fields: [] },
  { group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', namespaced: false,
    storage: 'certificatesigningrequests', hasStatus: true, hasGeneration: false, gracefulDelete: false, deleteReturnsObject: false,
    fields: ['spec.signerName'] },
  { ...core, resource: 'configmaps', kind: 'ConfigMap', namespaced: true, storage: 'configmaps', hasStatus: false,
    hasGeneration: false, gracefulDelete: false, deleteReturnsObject: false, fields: [], prepareWrite: prepareConfigMapWrite },
  { ...core, resource: 'secrets', kind: 'Secret', namespaced: true, storage: 'secrets', hasStatus: false,
    hasGeneration: false, gracefulDelete: false, deleteReturnsObject: false, fields: ['type'], prepareWrite: prepareSecretWrite },
  { ...core, resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, storage: 'serviceaccounts', hasStatus: false,
    hasGeneration: false, gracefulDelete: false, deleteReturnsObject: false, fields: [] },
  { ...core, resource: 'services', kind: 'Service', namespaced: true, storage: 'services', hasStatus: true,
    hasGeneration: false, gracefulDelete: false, deleteReturnsObject: true, fields: [], prepareWrite: prepareServiceWrite },
  { ...core, resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespaced: true, storage: 'persistentvolumeclaims', hasStatus: true,
    hasGeneration: false, gracefulDelete: false, deleteReturnsObject: true, fields: [] },
  { ...core, resource: 'persistentvolumes', kind: 'PersistentVolume', namespaced: false, storage: 'persistentvolumes', hasStatus: true,
    hasGeneration: false, gracefulDelete: false, deleteReturnsObject: true, fields: [] },
  { group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses', kind: 'RuntimeClass', namespaced: false, storage: 'runtimeclasses',
    hasStatus: false, hasGeneration: false, gracefulDelete: false, deleteReturnsObject: false, fields: [] },
];

/** The core/v1 form of each storage key, which the store holds. */
export function storageDef(key: StorageKey): ResourceDef {
  const def = RESOURCES.find((r) => r.storage === key && r.toStorage === undefined);
  if (def === undefined) throw new Error(`no storage resource ${key}`);
  return def;
}

export function findResource(group: string, version: string, resource: string): ResourceDef | undefined {
  return RESOURCES.find((r) => r.group === group && r.version === version && r.resource === resource);
}

/** Namespaces every cluster has from the start. */
export const INITIAL_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'] as const;
