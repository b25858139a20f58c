/**
 * A pod's cgroup: where it goes and what it is set to (pkg/kubelet/cm pod_container_manager_linux.go
 * and helpers_linux.go ResourceConfigForPod).
 *
 * Placement: `pod<uid>` under the QoS cgroup of the pod's class; Guaranteed pods sit directly in
 * the node-allocatable cgroup (`kubepods`). Settings, from the pod's summed requests and limits:
 *   - every class: cpu shares from the cpu requests (BestEffort: the minimum, 2);
 *   - Guaranteed: cpu quota from the cpu limits (or -1 when cpuCFSQuota is off), the period, and the
 *     memory limit;
 *   - Burstable: the quota only when every container declares a cpu limit, the memory limit only when
 *     every container declares one (otherwise one unlimited container makes the pod unlimited);
 *   - podPidsLimit, when positive, as the pids limit.
 * Not done (Go does): hugepage limits, the MemoryQoS feature's memory.min/memory.high.
 *
 * A pod uid with a '_' or a '/' gets no cgroup name, whatever the driver (Go's NewCgroupName panics
 * on such a component; here that pod's sandbox fails instead): the systemd driver writes '-' as '_',
 * so `x-1` and `x_1` would be one slice, and the orphan sweep, reading `x_1` back as `x-1`, would
 * stop the slice of the pod still running.
 */
import { KubeletError } from '../errors.js';
import { podQOS } from '../pod/qos.js';
import { podLimits, podRequests } from '../pod/resource-requests.js';
import type { Container, Pod } from '../pod/types.js';
import { parseQuantity, compareQuantities, zeroQuantity } from '../resources/quantity.js';
import type { CgroupName, CgroupRoots } from '../node/cgroup-roots.js';
import { MIN_SHARES, milliCpuToQuota, milliCpuToShares, type ResourceConfig } from './resource-config.js';

export interface PodCgroupSettings {
  /** --cpu-cfs-quota: enforce cpu limits with a cfs quota. */
  enforceCpuLimits: boolean;
  /** --cpu-cfs-quota-period, in µs. */
  cpuPeriodMicros: number;
  /** podPidsLimit; -1 or 0 leaves pids unlimited. */
  podPidsLimit: number;
}

const POD_CGROUP_PREFIX = 'pod';

/** Go's GetPodContainerName for cgroupfs: the QoS parent's components plus `pod<uid>`; KLT_ERR_CGROUP for a uid no cgroup can be named by. */
export function podCgroupName(qos: NonNullable<CgroupRoots['qos']>, pod: Pod): string[] {
  const { uid } = pod.metadata;
  const bad = ['_', '/'].find((c) => uid.includes(c));
  if (bad !== undefined) {
    throw new KubeletError('KLT_ERR_CGROUP', `pod uid ${JSON.stringify(uid)} cannot name a pod cgroup: a cgroup name component may not contain ${JSON.stringify(bad)}`);
  }
  const klass = podQOS(pod);
  const parent = klass === 'Guaranteed' ? qos.guaranteed : klass === 'Burstable' ? qos.burstable : qos.bestEffort;
  return [...parent.components, `${POD_CGROUP_PREFIX}${pod.metadata.uid}`];
}

/** The uid of a pod cgroup's directory name (`pod<uid>`), or null for any other cgroup. */
export function podUidOfCgroup(basename: string): string | null {
  return basename.startsWith(POD_CGROUP_PREFIX) && basename.length > POD_CGROUP_PREFIX.length ? basename.slice(POD_CGROUP_PREFIX.length) : null;
}

/** The cgroups pod cgroups live in: the Guaranteed one (the node-allocatable root) and the two QoS ones. */
export function podCgroupParents(qos: NonNullable<CgroupRoots['qos']>): CgroupName[] {
  return [qos.guaranteed, qos.burstable, qos.bestEffort];
}

function isZero(text: string | undefined): boolean {
  if (text === undefined) return true;
  try {
    return compareQuantities(parseQuantity(text), zeroQuantity) === 0;
  } catch {
    return true;
  }
}

/** Every container (init ones included) has a non-zero limit on `resource`, or the pod has a pod-level one. */
function limitsDeclared(pod: Pod, resource: 'cpu' | 'memory'): boolean {
  if (!isZero(pod.spec.resources?.limits?.[resource])) return true;
  const containers: Container[] = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])];
  return containers.every((c) => !isZero(c.resources?.limits?.[resource]));
}

/** Go's ResourceConfigForPod (see the file comment), plus the pids limit EnsureExists adds. */
export function resourceConfigForPod(pod: Pod, settings: PodCgroupSettings): ResourceConfig {
  const requests = podRequests(pod);
  const limits = podLimits(pod);
  const cpuShares = milliCpuToShares(requests.cpu ?? 0);
  const cpuQuota = settings.enforceCpuLimits ? milliCpuToQuota(limits.cpu ?? 0, settings.cpuPeriodMicros) : -1;
  const memory = limits.memory ?? 0;
  const pids = settings.podPidsLimit > 0 ? { pidsLimit: settings.podPidsLimit } : {};
  switch (podQOS(pod)) {
    case 'Guaranteed':
      return { cpuShares, cpuQuota, cpuPeriod: settings.cpuPeriodMicros, memoryLimitBytes: memory, ...pids };
    case 'Burstable':
      return {
        cpuShares,
        ...(limitsDeclared(pod, 'cpu') ? { cpuQuota, cpuPeriod: settings.cpuPeriodMicros } : {}),
        ...(limitsDeclared(pod, 'memory') ? { memoryLimitBytes: memory } : {}),
        ...pids,
      };
    default:
      return { cpuShares: MIN_SHARES, ...pids };
  }
}
