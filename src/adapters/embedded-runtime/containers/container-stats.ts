/**
 * ContainerStats and PodSandboxStats for host-process containers. A container in a cgroup of its own
 * (its sandbox named a cgroup_parent: container-cgroup.ts) is measured from that cgroup; any other
 * is measured as its process group (the shim starts it as a group leader in its own
 * session, and its children stay in the group unless they leave it): CPU and memory are summed over
 * the group's live members from /proc (see adapters/host/proc-usage.ts for what that counts and
 * what it misses). What the embedded runtime cannot measure it leaves out, never zero-fills:
 * - usage_nano_cores: absent; the kubelet computes it from two samples (as for any runtime that
 *   omits it).
 * - available_bytes: absent; there is no memory limit to subtract from.
 * - writable_layer: absent; a container has no root file system of its own.
 * - a sandbox's network: absent (host network; the node's interfaces are the node's).
 * A container that is not running has neither cpu nor memory.
 */
import type { ContainerStats } from '../../../generated/runtime/v1/ContainerStats.js';
import type { CpuUsage } from '../../../generated/runtime/v1/CpuUsage.js';
import type { MemoryUsage } from '../../../generated/runtime/v1/MemoryUsage.js';
import type { PodSandboxStats } from '../../../generated/runtime/v1/PodSandboxStats.js';
import { readProcessGroupUsage, type GroupUsage } from '../../host/proc-usage.js';
import { isSameProcessAlive } from '../shim/proc-stat.js';
import type { ContainerRecord, SandboxRecord } from '../state/records.js';

const u64 = (v: bigint) => ({ value: v.toString() });

function cpuUsage(timestamp: string, g: GroupUsage): CpuUsage {
  return { timestamp, usage_core_nano_seconds: u64(g.cpuNs), usage_nano_cores: null };
}

function memoryUsage(timestamp: string, g: GroupUsage): MemoryUsage {
  return {
    timestamp,
    working_set_bytes: u64(g.residentBytes),
    available_bytes: null,
    usage_bytes: u64(g.residentBytes),
    rss_bytes: u64(g.anonBytes),
    page_faults: u64(g.minorFaults),
    major_page_faults: u64(g.majorFaults),
  };
}

/** Where usage is read: /proc (a test's fake root), and the cgroup of a container that has one. */
export interface UsageSources {
  procRoot?: string;
  cgroupUsage?: (path: string) => Promise<GroupUsage | undefined>;
}

/**
 * The running container's usage, keyed by container id (containers whose leader is gone are
 * absent): its cgroup's when it has one (what the kernel charges it, as cAdvisor reads it), else its
 * process group's.
 */
async function measure(containers: readonly ContainerRecord[], sources: UsageSources = {}): Promise<Map<string, GroupUsage>> {
  const live = containers.filter((c) => c.phase === 'running' && c.process && isSameProcessAlive(c.process, sources.procRoot));
  const inCgroup = sources.cgroupUsage ? live.filter((c) => c.cgroup) : [];
  const byGroup = live.filter((c) => !inCgroup.includes(c));
  const groups = await readProcessGroupUsage(new Set(byGroup.map((c) => c.process!.pid)), sources.procRoot);
  const out = new Map<string, GroupUsage>();
  for (const c of byGroup) {
    const g = groups.get(c.process!.pid);
    if (g) out.set(c.id, g);
  }
  for (const c of inCgroup) {
    const g = await sources.cgroupUsage!(c.cgroup!);
    if (g) out.set(c.id, g);
  }
  return out;
}

function toContainerStats(c: ContainerRecord, usage: GroupUsage | undefined, timestamp: string): ContainerStats {
  return {
    attributes: { id: c.id, metadata: c.metadata, labels: c.labels, annotations: c.annotations },
    cpu: usage ? cpuUsage(timestamp, usage) : null,
    memory: usage ? memoryUsage(timestamp, usage) : null,
    writable_layer: null,
  };
}

export async function measureContainers(containers: readonly ContainerRecord[], nowNs: bigint, sources?: UsageSources): Promise<ContainerStats[]> {
  const usage = await measure(containers, sources);
  const timestamp = nowNs.toString();
  return containers.map((c) => toContainerStats(c, usage.get(c.id), timestamp));
}

/** Each sandbox's stats: its containers', and their sums as the pod's cpu, memory and process count. */
export async function measureSandboxes(
  sandboxes: readonly SandboxRecord[],
  containersOf: (sandboxId: string) => readonly ContainerRecord[],
  nowNs: bigint,
  sources?: UsageSources,
): Promise<PodSandboxStats[]> {
  const usage = await measure(sandboxes.flatMap((s) => containersOf(s.id)), sources);
  const timestamp = nowNs.toString();
  return sandboxes.map((s) => {
    const containers = containersOf(s.id);
    const total: GroupUsage = { cpuNs: 0n, residentBytes: 0n, anonBytes: 0n, minorFaults: 0n, majorFaults: 0n, processes: 0 };
    for (const c of containers) {
      const g = usage.get(c.id);
      if (!g) continue;
      total.cpuNs += g.cpuNs;
      total.residentBytes += g.residentBytes;
      total.anonBytes += g.anonBytes;
      total.minorFaults += g.minorFaults;
      total.majorFaults += g.majorFaults;
      total.processes += g.processes;
    }
    return {
      attributes: { id: s.id, metadata: s.metadata, labels: s.labels, annotations: s.annotations },
      linux: {
        cpu: cpuUsage(timestamp, total),
        memory: memoryUsage(timestamp, total),
        network: null,
        process: { timestamp, process_count: u64(BigInt(total.processes)) },
        containers: containers.map((c) => toContainerStats(c, usage.get(c.id), timestamp)),
      },
    };
  });
}
