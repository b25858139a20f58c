/**
 * The summary (GET /stats/summary) from the runtime's and the host's readings, as the Go kubelet's
 * summary provider and CRI stats provider assemble it (pkg/kubelet/server/stats/summary.go,
 * pkg/kubelet/stats/cri_stats_provider.go):
 * - pods: one per sandbox that has a running container with stats; of several sandboxes of one pod,
 *   the ready ones (else the newest), as Go's removeTerminatedPods; containers that are not running
 *   are left out (removeTerminatedContainers). A pod's startTime is its sandbox's creation, a
 *   container's its creation.
 * - a pod's cpu and memory are the sums of its containers' (Go's fallback when cAdvisor has no pod
 *   cgroup; kubelet-ts has no cAdvisor, so always: pod overhead outside the containers is missing).
 * - volume: the pod's volume stats as the volume stats calculator last measured them, local
 *   ephemeral ones first (Go's makePodStorageStats); absent until one was measured.
 * - ephemeral-storage: the containers' writable layers and logs and the local ephemeral volumes
 *   (disk emptyDirs, configMaps) on the node's root file system (Go also counts the pod's etc-hosts
 *   file; kubelet-ts has none).
 * - usageNanoCores: the runtime's when it gives one, else the rate since the previous sample.
 * - node memory as cAdvisor's root container: usage = MemTotal − MemFree, workingSet = usage −
 *   Inactive(file), available = MemTotal − workingSet, rss = AnonPages.
 */
import { usageNanoCores, type CpuSample } from './cpu-rate.js';
import { metaTimeFromNs } from './meta-time.js';
import type { PodVolumeStats } from './volume-stats.js';
import type { DirectoryUsage, FsCapacity, NodeReadings } from './node-readings.js';
import { cpuSampleKey, type ContainerInfo, type ContainerUsage, type FsUsageReading, type SandboxInfo, type SummaryInput } from './summary-input.js';
import { SYSTEM_CONTAINER_KUBELET, type ContainerStats, type CpuStats, type FsStats, type MemoryStats, type NodeStats, type PodStats, type Summary } from './summary-types.js';

export interface SummaryOutput {
  summary: Summary;
  /** This request's CPU samples, by cpuSampleKey: the stats provider keeps them for the next rates. */
  cpuSamples: Map<string, CpuSample>;
}

export function buildSummary(input: SummaryInput): SummaryOutput {
  const cpuSamples = new Map<string, CpuSample>();
  const rate = (key: string, sample: CpuSample) => {
    cpuSamples.set(key, sample);
    return usageNanoCores(input.previousCpu.get(key), sample);
  };
  return { summary: { node: nodeStats(input, rate), pods: podStats(input, rate) }, cpuSamples };
}

type Rate = (key: string, sample: CpuSample) => bigint | undefined;

function nodeStats(input: SummaryInput, rate: Rate): NodeStats {
  const n = input.node;
  const time = metaTimeFromNs(n.timestampNs);
  const node: NodeStats = {
    nodeName: input.nodeName,
    systemContainers: [kubeletContainer(n, rate)],
    startTime: metaTimeFromNs(n.bootTimeNs),
    cpu: cpuStats(time, n.cpuNs, rate(cpuSampleKey.node, { timestampNs: n.timestampNs, usageCoreNanoSeconds: n.cpuNs })),
    memory: nodeMemory(time, n),
    fs: fsStats(time, n.rootFs, n.rootFs.usedBytes, n.rootFs.inodes - n.rootFs.inodesFree),
  };
  if (input.imageFs) {
    const imageFs = fsUsageStats(input.imageFs);
    node.runtime = { imageFs, containerFs: input.containerFs ? fsUsageStats(input.containerFs) : imageFs };
  }
  if (n.maxPid !== null || n.tasks !== null) {
    node.rlimit = { time, ...(n.maxPid !== null ? { maxpid: n.maxPid } : {}), ...(n.tasks !== null ? { curproc: n.tasks } : {}) };
  }
  if (n.memory.swapTotalBytes > 0n) {
    node.swap = { time, swapAvailableBytes: n.memory.swapFreeBytes, swapUsageBytes: n.memory.swapTotalBytes - n.memory.swapFreeBytes };
  }
  return node;
}

function cpuStats(time: string, usageCoreNanoSeconds: bigint, nanoCores: bigint | undefined): CpuStats {
  return { time, ...(nanoCores !== undefined ? { usageNanoCores: nanoCores } : {}), usageCoreNanoSeconds };
}

function nodeMemory(time: string, n: NodeReadings): MemoryStats {
  const m = n.memory;
  const usage = m.totalBytes - m.freeBytes;
  const workingSet = usage > m.inactiveFileBytes ? usage - m.inactiveFileBytes : 0n;
  return {
    time,
    availableBytes: m.totalBytes - workingSet,
    usageBytes: usage,
    workingSetBytes: workingSet,
    rssBytes: m.anonBytes,
    pageFaults: n.pageFaults,
    majorPageFaults: n.majorPageFaults,
  };
}

/** The kubelet's own process as Go's "kubelet" system container (there, its cgroup). */
function kubeletContainer(n: NodeReadings, rate: Rate): ContainerStats {
  const k = n.kubelet;
  const time = metaTimeFromNs(n.timestampNs);
  return {
    name: SYSTEM_CONTAINER_KUBELET,
    startTime: metaTimeFromNs(k.startTimeNs),
    cpu: cpuStats(time, k.cpuNs, rate(cpuSampleKey.kubelet, { timestampNs: n.timestampNs, usageCoreNanoSeconds: k.cpuNs })),
    memory: { time, usageBytes: k.residentBytes, workingSetBytes: k.residentBytes, rssBytes: k.anonBytes, pageFaults: k.minorFaults, majorPageFaults: k.majorFaults },
  };
}

function fsStats(time: string, fs: FsCapacity | null, usedBytes: bigint | undefined, inodesUsed: bigint | undefined): FsStats {
  return {
    time,
    ...(fs ? { availableBytes: fs.availableBytes, capacityBytes: fs.capacityBytes } : {}),
    ...(usedBytes !== undefined ? { usedBytes } : {}),
    ...(fs ? { inodesFree: fs.inodesFree, inodes: fs.inodes } : {}),
    ...(inodesUsed !== undefined ? { inodesUsed } : {}),
  };
}

function fsUsageStats(r: FsUsageReading): FsStats {
  return fsStats(metaTimeFromNs(r.timestampNs), r.fs, r.usedBytes, r.inodesUsed);
}

/** Go's removeTerminatedPods: of one pod's sandboxes, the ready ones, else the newest. */
export function currentSandboxes(sandboxes: SandboxInfo[]): SandboxInfo[] {
  const byPod = new Map<string, SandboxInfo[]>();
  for (const s of [...sandboxes].sort((a, b) => (a.createdAtNs < b.createdAtNs ? -1 : a.createdAtNs > b.createdAtNs ? 1 : 0))) {
    const key = `${s.namespace}/${s.name}/${s.uid}`;
    byPod.set(key, [...(byPod.get(key) ?? []), s]);
  }
  return [...byPod.values()].flatMap((list) => {
    const ready = list.filter((s) => s.ready);
    return ready.length > 0 ? ready : [list[list.length - 1]!];
  });
}

function podStats(input: SummaryInput, rate: Rate): PodStats[] {
  const sandboxes = new Map(currentSandboxes(input.sandboxes).map((s) => [s.id, s]));
  const running = new Map(input.containers.filter((c) => c.running).map((c) => [c.id, c]));
  const pods = new Map<string, PodStats>();
  for (const usage of input.usage) {
    const container = running.get(usage.containerId);
    const sandbox = container ? sandboxes.get(container.sandboxId) : undefined;
    if (!container || !sandbox) continue;
    let pod = pods.get(sandbox.id);
    if (!pod) {
      pod = { podRef: { name: sandbox.name, namespace: sandbox.namespace, uid: sandbox.uid }, startTime: metaTimeFromNs(sandbox.createdAtNs), containers: [] };
      pods.set(sandbox.id, pod);
    }
    pod.containers.push(containerStats(input, container, usage, rate));
  }
  for (const pod of pods.values()) addPodTotals(pod, input.node, input.volumes?.get(pod.podRef.uid));
  return [...pods.values()];
}

function containerStats(input: SummaryInput, container: ContainerInfo, usage: ContainerUsage, rate: Rate): ContainerStats {
  const out: ContainerStats = { name: container.name, startTime: metaTimeFromNs(container.createdAtNs) };
  const cpu = usage.cpu;
  if (cpu) {
    const time = metaTimeFromNs(cpu.timestampNs);
    const total = cpu.usageCoreNanoSeconds;
    const nanoCores = cpu.usageNanoCores
      ?? (total !== undefined ? rate(cpuSampleKey.container(container.id), { timestampNs: cpu.timestampNs, usageCoreNanoSeconds: total }) : undefined);
    out.cpu = { time, ...(nanoCores !== undefined ? { usageNanoCores: nanoCores } : {}), ...(total !== undefined ? { usageCoreNanoSeconds: total } : {}) };
  }
  const mem = usage.memory;
  if (mem) {
    const { timestampNs, ...values } = mem;
    out.memory = { time: metaTimeFromNs(timestampNs), ...definedOnly(values) };
  }
  if (usage.writableLayer) out.rootfs = fsUsageStats(usage.writableLayer);
  const logs = input.logs.get(container.id);
  if (logs) out.logs = logUsageStats(input.node.timestampNs, logs, input.logFs ?? input.node.rootFs);
  return out;
}

function logUsageStats(timestampNs: bigint, usage: DirectoryUsage, fs: FsCapacity): FsStats {
  return fsStats(metaTimeFromNs(timestampNs), fs, usage.usedBytes, usage.inodesUsed);
}

function definedOnly<T extends object>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}

const latest = (times: string[]) => times.reduce((a, b) => (a > b ? a : b));

/** Pod cpu and memory as the sum of its containers'; ephemeral storage as their rootfs + logs + local ephemeral volumes on the root fs (Go's calcEphemeralStorage). */
function addPodTotals(pod: PodStats, node: NodeReadings, volumes: PodVolumeStats | undefined): void {
  const sum = (values: (bigint | undefined)[]) => {
    const present = values.filter((v): v is bigint => v !== undefined);
    return present.length > 0 ? present.reduce((a, b) => a + b, 0n) : undefined;
  };
  const cpus = pod.containers.flatMap((c) => (c.cpu ? [c.cpu] : []));
  if (cpus.length > 0) {
    const nanoCores = sum(cpus.map((c) => c.usageNanoCores));
    const total = sum(cpus.map((c) => c.usageCoreNanoSeconds));
    pod.cpu = { time: latest(cpus.map((c) => c.time)), ...(nanoCores !== undefined ? { usageNanoCores: nanoCores } : {}), ...(total !== undefined ? { usageCoreNanoSeconds: total } : {}) };
  }
  const mems = pod.containers.flatMap((c) => (c.memory ? [c.memory] : []));
  if (mems.length > 0) {
    pod.memory = {
      time: latest(mems.map((m) => m.time)),
      ...definedOnly({
        usageBytes: sum(mems.map((m) => m.usageBytes)),
        workingSetBytes: sum(mems.map((m) => m.workingSetBytes)),
        rssBytes: sum(mems.map((m) => m.rssBytes)),
        pageFaults: sum(mems.map((m) => m.pageFaults)),
        majorPageFaults: sum(mems.map((m) => m.majorPageFaults)),
      }),
    };
  }
  const all = volumes ? [...volumes.ephemeral, ...volumes.persistent] : [];
  if (all.length > 0) pod.volume = all;
  const storage = [...pod.containers.flatMap((c) => [c.rootfs, c.logs]), ...(volumes?.ephemeral ?? [])].filter((f): f is FsStats => f !== undefined);
  if (storage.length > 0) {
    const used = sum(storage.map((f) => f.usedBytes));
    const inodesUsed = sum(storage.map((f) => f.inodesUsed));
    const time = latest([metaTimeFromNs(node.timestampNs), ...(volumes?.ephemeral ?? []).map((v) => v.time)]);
    pod['ephemeral-storage'] = fsStats(time, node.rootFs, used, inodesUsed);
  }
}
