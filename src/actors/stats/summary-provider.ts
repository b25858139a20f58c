/**
 * GET /stats/summary's work: read the runtime (ListPodSandbox, ListContainers, ListContainerStats,
 * ImageFsInfo) and the host (/proc, statfs, log directories), hand both to the pure builder, keep
 * its CPU samples for the next request's rates. The pods' volume stats come from the volume stats
 * analyzer's cache, never measured here. Go's summary provider with its CRI stats provider does the
 * same reads (through cAdvisor for the host).
 *
 * Any failed read fails the request with the Go kubelet's wording ("failed to list pod stats: …"),
 * which the server answers with 500; nothing here can bring the kubelet down.
 *
 * Concurrent requests share one read and a read started less than a second ago is answered again
 * (coalesced-read.ts): a crowd of clients costs the runtime one set of calls per second at most, so
 * the kubelet's own CRI Status checks are not starved. Past MAX_WAITING waiting requests per kind
 * of summary, a request is refused with KLT_ERR_STATS_BUSY (503 with Retry-After).
 */
import { KubeletError } from '../../domain/errors.js';
import { buildSummary } from '../../domain/stats/build-summary.js';
import { cpuAndMemoryOnly } from '../../domain/stats/cpu-and-memory.js';
import type { DirectoryUsage, FsCapacity } from '../../domain/stats/node-readings.js';
import type { ContainerInfo, ContainerUsage, FsUsageReading, SandboxInfo } from '../../domain/stats/summary-input.js';
import type { Summary } from '../../domain/stats/summary-types.js';
import type { PodVolumeStats } from '../../domain/stats/volume-stats.js';
import type { CriClient } from '../../ports/cri.js';
import type { HostStats } from '../../ports/stats.js';
import { CoalescedRead, type CoalescedReadOptions } from './coalesced-read.js';
import { CpuSampleCache } from './cpu-sample-cache.js';
import { containerInfo, containerUsage, fsUsageReading, sandboxInfo } from './cri-usage.js';

export interface SummarySources {
  /** The CRI client once run.preInitRuntime connected it; undefined before. */
  cri: () => CriClient | undefined;
  host: HostStats;
  nodeName: () => string;
  rootDir: () => string;
  podLogsDir: () => string;
  /** Each pod's latest volume stats, by pod uid (the volume stats analyzer's cache); absent: none. */
  volumeStats?: () => ReadonlyMap<string, PodVolumeStats>;
}

interface RuntimeReadings {
  sandboxes: SandboxInfo[];
  containers: ContainerInfo[];
  usage: ContainerUsage[];
  imageFs: FsUsageReading | null;
  containerFs: FsUsageReading | null;
}

async function step<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    throw new KubeletError('KLT_ERR_STATS_UNAVAILABLE', `${what}: ${(err as Error).message}`, { cause: err });
  }
}

/** A summary started this recently is answered again: Go's stats come from a cache refreshed about as often. */
export const SUMMARY_MAX_AGE_MS = 1000;
/** Requests that may wait for one summary read (per kind: full, CPU and memory only). */
export const SUMMARY_MAX_WAITING = 512;

export class SummaryProvider {
  private readonly cpu = new CpuSampleCache();
  private readonly full: CoalescedRead<Summary>;
  private readonly cpuAndMemory: CoalescedRead<Summary>;
  private readonly nodeLevel: CoalescedRead<Summary>;

  constructor(private readonly src: SummarySources, sharing: Partial<Omit<CoalescedReadOptions, 'what'>> & Pick<CoalescedReadOptions, 'now'>) {
    const opts = { maxAgeMs: SUMMARY_MAX_AGE_MS, maxWaiting: SUMMARY_MAX_WAITING, ...sharing };
    this.full = new CoalescedRead(() => this.read(false), { ...opts, what: 'stats summary' });
    this.cpuAndMemory = new CoalescedRead(() => this.read(true), { ...opts, what: 'CPU and memory stats summary' });
    this.nodeLevel = new CoalescedRead(() => this.readNodeLevel(), { ...opts, what: 'node stats summary' });
  }

  /**
   * The node's part alone (memory, file systems, the runtime's image file system, pids), with no
   * pods: what the eviction manager observes every 10 s. It lists no container and reads no stats
   * or log directory, which on a node of many pods would be a large part of its idle CPU
   * (docs/FINDINGS.md).
   */
  nodeOnly(): Promise<Summary> {
    return this.nodeLevel.get();
  }

  /** The summary; with `onlyCpuAndMemory`, without file systems (and without reading them). */
  get(onlyCpuAndMemory: boolean): Promise<Summary> {
    return (onlyCpuAndMemory ? this.cpuAndMemory : this.full).get();
  }

  private async read(onlyCpuAndMemory: boolean): Promise<Summary> {
    const node = await step('failed to get root cgroup stats', () => this.src.host.node(this.src.rootDir()));
    const runtime = await this.readRuntime(!onlyCpuAndMemory);
    const logs = onlyCpuAndMemory ? { usage: new Map<string, DirectoryUsage>(), fs: null } : await this.readLogs(runtime);
    const { summary, cpuSamples } = buildSummary({
      nodeName: this.src.nodeName(), node, ...runtime, logs: logs.usage, logFs: logs.fs, previousCpu: this.cpu.previous(),
      ...(!onlyCpuAndMemory && this.src.volumeStats ? { volumes: this.src.volumeStats() } : {}),
    });
    this.cpu.update(cpuSamples);
    return onlyCpuAndMemory ? cpuAndMemoryOnly(summary) : summary;
  }

  private async readNodeLevel(): Promise<Summary> {
    const node = await step('failed to get root cgroup stats', () => this.src.host.node(this.src.rootDir()));
    const { imageFs, containerFs } = await this.readRuntimeFilesystems(this.connectedCri(), this.statfsOnce());
    const { summary } = buildSummary({
      nodeName: this.src.nodeName(), node, sandboxes: [], containers: [], usage: [], imageFs, containerFs,
      logs: new Map(), logFs: null, previousCpu: this.cpu.previous(),
    });
    // The CPU samples are left as they are: a read without containers must not drop theirs.
    return summary;
  }

  private connectedCri(): CriClient {
    const cri = this.src.cri();
    if (!cri) throw new KubeletError('KLT_ERR_STATS_UNAVAILABLE', 'failed to list pod stats: the container runtime is not connected yet');
    return cri;
  }

  /** statfs by mount point, each asked once per read. */
  private statfsOnce(): (mountpoint: string) => Promise<FsCapacity | null> {
    const fsCache = new Map<string, Promise<FsCapacity | null>>();
    return (mountpoint) => {
      if (!mountpoint) return Promise.resolve(null);
      let hit = fsCache.get(mountpoint);
      if (!hit) fsCache.set(mountpoint, (hit = this.src.host.filesystem(mountpoint)));
      return hit;
    };
  }

  /** The runtime's image and container file systems (ImageFsInfo, each with its statfs). */
  private async readRuntimeFilesystems(cri: CriClient, statfs: (mountpoint: string) => Promise<FsCapacity | null>): Promise<Pick<RuntimeReadings, 'imageFs' | 'containerFs'>> {
    const info = await step('failed to get imageFs stats', () => cri.images.imageFsInfo());
    // Go reads the first of each (one image file system per runtime, "to be extended").
    const image = info.image_filesystems[0];
    const container = info.container_filesystems[0];
    return {
      imageFs: image ? fsUsageReading(image, await statfs(image.fs_id?.mountpoint ?? '')) : null,
      containerFs: container ? fsUsageReading(container, await statfs(container.fs_id?.mountpoint ?? '')) : null,
    };
  }

  private async readRuntime(withFilesystems: boolean): Promise<RuntimeReadings> {
    const cri = this.connectedCri();
    const { runtime } = cri;
    const [sandboxes, containers, stats] = await step('failed to list pod stats', () => Promise.all([
      runtime.listPodSandbox(),
      runtime.listContainers({ state: { state: 'CONTAINER_RUNNING' } }),
      runtime.listContainerStats(),
    ]));
    const statfs = this.statfsOnce();
    const layerFs = new Map<string, FsCapacity | null>();
    if (withFilesystems) {
      for (const s of stats) {
        const mp = s.writable_layer?.fs_id?.mountpoint ?? '';
        if (mp && !layerFs.has(mp)) layerFs.set(mp, await statfs(mp));
      }
    }
    const filesystems = withFilesystems ? await this.readRuntimeFilesystems(cri, statfs) : { imageFs: null, containerFs: null };
    return {
      sandboxes: sandboxes.map(sandboxInfo),
      containers: containers.map(containerInfo),
      usage: stats.map((s) => containerUsage(s, (mp) => layerFs.get(mp) ?? null)).filter((u): u is ContainerUsage => u !== null),
      ...filesystems,
    };
  }

  /** Each running container's log directory (`<podLogsDir>/<ns>_<pod>_<uid>/<container>`), as Go's du. */
  private async readLogs(runtime: RuntimeReadings): Promise<{ usage: Map<string, DirectoryUsage>; fs: FsCapacity | null }> {
    const dir = this.src.podLogsDir();
    const sandboxes = new Map(runtime.sandboxes.map((s) => [s.id, s]));
    const usage = new Map<string, DirectoryUsage>();
    await Promise.all(runtime.containers.map(async (c) => {
      const s = sandboxes.get(c.sandboxId);
      if (!s) return;
      const u = await this.src.host.directoryUsage(`${dir}/${s.namespace}_${s.name}_${s.uid}/${c.name}`);
      if (u) usage.set(c.id, u);
    }));
    return { usage, fs: await this.src.host.filesystem(dir) };
  }
}

