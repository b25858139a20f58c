/**
 * The API objects the node side reads and writes, as plain JSON in the Kubernetes wire shape
 * (camelCase, times as RFC 3339 strings, quantities as strings). Only the fields the kubelet sets
 * or reads are typed; anything else the server returns rides along untyped.
 */
import type { ConditionStatus, ObjectMeta, Taint } from '../api/common-types.js';

export interface NodeCondition {
  type: string;
  status: ConditionStatus;
  lastHeartbeatTime: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface NodeAddress {
  type: 'InternalIP' | 'ExternalIP' | 'Hostname' | 'InternalDNS' | 'ExternalDNS';
  address: string;
}

export interface NodeSystemInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  containerRuntimeVersion: string;
  kubeletVersion: string;
  kubeProxyVersion: string;
  operatingSystem: string;
  architecture: string;
}

export interface ContainerImage {
  names: string[];
  sizeBytes: number;
}

export interface NodeStatus {
  capacity?: Record<string, string>;
  allocatable?: Record<string, string>;
  conditions?: NodeCondition[];
  addresses?: NodeAddress[];
  daemonEndpoints?: { kubeletEndpoint: { Port: number } };
  nodeInfo?: NodeSystemInfo;
  images?: ContainerImage[];
  /** Unique names of the attachable volumes the node has in use (the attach/detach controller waits for them to leave before detaching). */
  volumesInUse?: string[];
  /** Set by the attach/detach controller: the volumes attached to the node, which the kubelet waits for before staging. */
  volumesAttached?: { name: string; devicePath?: string }[];
  [extra: string]: unknown;
}

export interface NodeObject {
  apiVersion?: 'v1';
  kind?: 'Node';
  metadata: ObjectMeta;
  spec?: { taints?: Taint[]; unschedulable?: boolean; [extra: string]: unknown };
  status?: NodeStatus;
}

export interface LeaseObject {
  apiVersion?: 'coordination.k8s.io/v1';
  kind?: 'Lease';
  metadata: ObjectMeta;
  spec: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    /** MicroTime: RFC 3339 with microseconds. */
    renewTime?: string;
    acquireTime?: string;
    [extra: string]: unknown;
  };
}

/** Any other object (pods, events) the port passes through without looking inside. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [extra: string]: unknown;
}

/** RFC 3339 with second precision, as metav1.Time marshals (Go drops fractions). */
export function metaTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** metav1.MicroTime: RFC 3339 with exactly six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
