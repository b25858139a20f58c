/**
 * Downward API values for env vars: `fieldRef` (podFieldSelectorRuntimeValue +
 * fieldpath.ExtractFieldPathAsString) and `resourceFieldRef` (ExtractContainerResourceValue).
 */
import { KubeletError } from '../errors.js';
import type { Container, Pod, ResourceFieldSelector } from '../pod/types.js';
import { parseQuantity, quantityMilliValue, quantityValue, type Quantity } from '../resources/quantity.js';

/** What the node knows that the pod object does not carry. */
export interface DownwardApiContext {
  /** The sandbox's IPs, primary first; empty for a pod without one yet. */
  podIPs: string[];
  /** The node's IPs, primary first. */
  hostIPs: string[];
  /** Node allocatable, used for limits a container does not set (cpu, memory, ephemeral-storage). */
  nodeAllocatable?: Record<string, string>;
}

function configError(message: string): KubeletError {
  return new KubeletError('KLT_ERR_CONTAINER_CONFIG', message);
}

/** Go's FormatMap: `key="value"` lines, keys sorted. Go's %q and JSON agree on printable strings. */
function formatMap(map: Record<string, string> | undefined): string {
  return Object.keys(map ?? {})
    .sort()
    .map((key) => `${key}=${JSON.stringify(map?.[key])}`)
    .join('\n');
}

const subscriptPattern = /^metadata\.(labels|annotations)\['(.*)'\]$/;

export function podFieldValue(fieldPath: string, pod: Pod, ctx: DownwardApiContext): string {
  switch (fieldPath) {
    case 'spec.nodeName': return pod.spec.nodeName ?? '';
    case 'spec.serviceAccountName': return pod.spec.serviceAccountName ?? '';
    case 'status.hostIP': {
      const [first] = ctx.hostIPs;
      if (first === undefined) throw configError('host IP unknown');
      return first;
    }
    case 'status.hostIPs': return ctx.hostIPs.join(',');
    case 'status.podIP': return ctx.podIPs[0] ?? '';
    case 'status.podIPs': return ctx.podIPs.join(',');
    case 'spec.terminationGracePeriodSeconds': return String(pod.spec.terminationGracePeriodSeconds ?? 30);
    case 'metadata.name': return pod.metadata.name;
    case 'metadata.namespace': return pod.metadata.namespace ?? 'default';
    case 'metadata.uid': return pod.metadata.uid;
    case 'metadata.labels': return formatMap(pod.metadata.labels);
    case 'metadata.annotations': return formatMap(pod.metadata.annotations);
  }
  const subscript = subscriptPattern.exec(fieldPath);
  if (subscript) {
    const map = subscript[1] === 'labels' ? pod.metadata.labels : pod.metadata.annotations;
    return map?.[subscript[2] ?? ''] ?? '';
  }
  throw configError(`unsupported fieldPath: ${fieldPath}`);
}

function ratioCeil(value: bigint, divisor: bigint): string {
  if (divisor === 0n) throw configError('resourceFieldRef divisor must be positive');
  // Go: int64(math.Ceil(float64(value) / float64(divisor))).
  return String(Math.ceil(Number(value) / Number(divisor)));
}

const limitsFromAllocatable = ['cpu', 'memory', 'ephemeral-storage'];

/** The pod-level resources (PodLevelResources) Go supports; hugepages count as set but give no default. */
const POD_LEVEL_DEFAULTS = ['cpu', 'memory'];

/**
 * The limits a container that sets none gets for the downward API (Go's defaultPodLimitsForDownwardAPI):
 * the node's allocatable, but with pod-level limits set, the pod's cpu and memory limits instead.
 */
function downwardApiDefaultLimits(pod: Pod, nodeAllocatable: Record<string, string> | undefined): Record<string, string> | undefined {
  const podLimits = pod.spec.resources?.limits ?? {};
  const podLevelSet = Object.keys(podLimits).some((r) => POD_LEVEL_DEFAULTS.includes(r) || r.startsWith('hugepages-'));
  if (!nodeAllocatable || !podLevelSet) return nodeAllocatable;
  const defaults = { ...nodeAllocatable };
  for (const r of POD_LEVEL_DEFAULTS) {
    const limit = podLimits[r];
    if (limit !== undefined && parseQuantity(limit).num !== 0n && defaults[r] !== undefined) defaults[r] = limit;
  }
  return defaults;
}

export function containerResourceValue(ref: ResourceFieldSelector, pod: Pod, current: Container, ctx: DownwardApiContext): string {
  const name = ref.containerName || current.name;
  const container = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])].find((c) => c.name === name);
  if (!container) throw configError(`resourceFieldRef names no container of the pod: ${name}`);
  const divisor: Quantity = ref.divisor ? parseQuantity(ref.divisor) : { num: 1n, den: 1n };
  if (divisor.num === 0n) return containerResourceValue({ ...ref, divisor: '1' }, pod, current, ctx);

  const [kind, resource] = ref.resource.split(/\.(.*)/s) as [string, string | undefined];
  const requests = container.resources?.requests ?? {};
  const limits: Record<string, string> = { ...container.resources?.limits };
  // A limit the container leaves unset is the node's allocatable, or the pod's limit (MergeContainerResourceLimits).
  const defaults = downwardApiDefaultLimits(pod, ctx.nodeAllocatable);
  for (const r of limitsFromAllocatable) {
    const fallback = defaults?.[r];
    if (limits[r] === undefined && fallback !== undefined) limits[r] = fallback;
  }
  const list = kind === 'limits' ? limits : kind === 'requests' ? requests : undefined;
  if (!list || resource === undefined || !(resource === 'cpu' || resource === 'memory' || resource === 'ephemeral-storage' || resource.startsWith('hugepages-'))) {
    throw configError(`unsupported container resource : ${ref.resource}`);
  }
  const amount = parseQuantity(list[resource] ?? '0');
  return resource === 'cpu'
    ? ratioCeil(quantityMilliValue(amount), quantityMilliValue(divisor))
    : ratioCeil(quantityValue(amount), quantityValue(divisor));
}
