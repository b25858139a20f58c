/**
 * What the churn bench samples every 10 s on the node under test: the kubelet's RSS, V8's heap
 * (kubelet-ts's, through the inspector) and open fds, and what a node collects
 * as pods come and go — journal bytes, pod directories, pod log directories, sandboxes and
 * containers in the runtime, pod cgroups. Each is 0 where a kubelet has none (the Go kubelet writes
 * no journal).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CriClient } from '../src/ports/cri.js';
import type { InspectorSession } from './inspector-session.js';
import { rssMiB } from './proc-usage.js';

const MiB = 1024 * 1024;

export interface SampledNode {
  pid: number;
  /** The kubelet's root dir (pods/, events/). */
  root: string;
  /** Where its pods' log directories go (`<namespace>_<name>_<uid>`). */
  podLogsDir: string;
  namespace: string;
  cri: CriClient;
  /** kubelet-ts: an inspector session on it, for V8's heap. */
  inspector?: InspectorSession;
}

const entries = (dir: string): string[] => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

/** Bytes of the regular files under `dir`, recursively. */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const e of entries(dir)) {
    const path = join(dir, e);
    try {
      const s = statSync(path);
      total += s.isDirectory() ? bytesUnder(path) : s.size;
    } catch {
      // gone while listing (rotation)
    }
  }
  return total;
}

/** Directories below the runtime's pod cgroup roots in the pids hierarchy (pods and their containers). */
function podCgroups(): number {
  const roots = ['/sys/fs/cgroup/pids/k8s.io', `/sys/fs/cgroup/pids${process.env.KUBELET_IT_CRI_CGROUP_PARENT ?? '/kubelet-ts-ci'}`];
  let n = 0;
  const walk = (dir: string): void => {
    for (const e of entries(dir)) {
      const path = join(dir, e);
      try {
        if (!statSync(path).isDirectory()) continue;
      } catch {
        continue;
      }
      n++;
      walk(path);
    }
  };
  for (const root of roots) walk(root);
  return n;
}

/** V8's heap through the inspector; NaN for the Go kubelet, whose heap is not read (its RSS is what compares). */
async function heapMiB(inspector: InspectorSession | undefined): Promise<{ heapUsedMiB: number; heapTotalMiB: number }> {
  if (!inspector) return { heapUsedMiB: NaN, heapTotalMiB: NaN };
  const { usedSize, totalSize } = await inspector.send<{ usedSize: number; totalSize: number }>('Runtime.getHeapUsage');
  return { heapUsedMiB: usedSize / MiB, heapTotalMiB: totalSize / MiB };
}

export async function sampleNode(n: SampledNode): Promise<Record<string, number>> {
  const ours = (labels: Record<string, string> | undefined) => labels?.['io.kubernetes.pod.namespace'] === n.namespace;
  const [containers, sandboxes, heap] = await Promise.all([n.cri.runtime.listContainers(), n.cri.runtime.listPodSandbox(), heapMiB(n.inspector)]);
  return {
    rssMiB: rssMiB(n.pid),
    ...heap,
    fds: entries(`/proc/${n.pid}/fd`).length,
    journalMiB: bytesUnder(join(n.root, 'events')) / MiB,
    podDirs: entries(join(n.root, 'pods')).length,
    podLogDirs: entries(n.podLogsDir).filter((e) => e.startsWith(`${n.namespace}_`)).length,
    sandboxes: sandboxes.filter((s) => ours(s.labels)).length,
    containers: containers.filter((c) => ours(c.labels)).length,
    cgroups: podCgroups(),
  };
}
