/** CRI answers as the summary builder's plain inputs (src/domain/stats/summary-input.ts). */
import type { ContainerInfo, ContainerUsage, FsUsageReading, SandboxInfo } from '../../domain/stats/summary-input.js';
import type { FsCapacity } from '../../domain/stats/node-readings.js';
import type { Container, ContainerStats, FilesystemUsage, PodSandbox, UInt64Value } from '../../ports/cri.js';

const ns = (v: string | undefined | null) => BigInt(v || '0');
const u64 = (v: UInt64Value | null | undefined) => (v ? BigInt(v.value || '0') : undefined);

export function sandboxInfo(s: PodSandbox): SandboxInfo {
  return { id: s.id, name: s.metadata?.name ?? '', namespace: s.metadata?.namespace ?? '', uid: s.metadata?.uid ?? '', ready: s.state === 'SANDBOX_READY', createdAtNs: ns(s.created_at) };
}

export function containerInfo(c: Container): ContainerInfo {
  return { id: c.id, sandboxId: c.pod_sandbox_id, name: c.metadata?.name ?? '', running: c.state === 'CONTAINER_RUNNING', createdAtNs: ns(c.created_at) };
}

function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function fsUsageReading(u: FilesystemUsage, fs: FsCapacity | null): FsUsageReading {
  return defined({ timestampNs: ns(u.timestamp), usedBytes: u64(u.used_bytes), inodesUsed: u64(u.inodes_used), fs });
}

/** `fsOf` gives the statfs of a writable layer's mount point, measured by the caller. */
export function containerUsage(s: ContainerStats, fsOf: (mountpoint: string) => FsCapacity | null): ContainerUsage | null {
  const id = s.attributes?.id;
  if (!id) return null;
  const out: ContainerUsage = { containerId: id };
  if (s.cpu) out.cpu = defined({ timestampNs: ns(s.cpu.timestamp), usageCoreNanoSeconds: u64(s.cpu.usage_core_nano_seconds), usageNanoCores: u64(s.cpu.usage_nano_cores) });
  const m = s.memory;
  if (m) {
    out.memory = defined({
      timestampNs: ns(m.timestamp),
      workingSetBytes: u64(m.working_set_bytes),
      availableBytes: u64(m.available_bytes),
      usageBytes: u64(m.usage_bytes),
      rssBytes: u64(m.rss_bytes),
      pageFaults: u64(m.page_faults),
      majorPageFaults: u64(m.major_page_faults),
    });
  }
  if (s.writable_layer) out.writableLayer = fsUsageReading(s.writable_layer, fsOf(s.writable_layer.fs_id?.mountpoint ?? ''));
  return out;
}
