/**
 * Container garbage collection (pkg/kubelet/kuberuntime/kuberuntime_gc.go, the container part):
 * every minute, exited containers beyond `keepPerContainer` per (pod, container name) are removed,
 * oldest first; then not-ready sandboxes that no longer hold a container are removed. Runs off the
 * actors' path (its own timer); a failure is logged and retried next period.
 */
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { Container, CriClient } from '../../ports/cri.js';

export const CONTAINER_GC_PERIOD_MS = 60_000;

export async function collectContainers(cri: CriClient, keepPerContainer: number): Promise<{ removedContainers: string[]; removedSandboxes: string[] }> {
  const containers = await cri.runtime.listContainers();
  const groups = new Map<string, Container[]>();
  for (const c of containers) {
    if (c.state !== 'CONTAINER_EXITED') continue;
    const key = `${c.labels['io.kubernetes.pod.uid'] ?? c.pod_sandbox_id}/${c.metadata.name}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const removedContainers: string[] = [];
  for (const group of groups.values()) {
    group.sort((a, b) => (BigInt(b.created_at) > BigInt(a.created_at) ? 1 : -1));
    for (const old of group.slice(Math.max(0, keepPerContainer))) {
      await cri.runtime.removeContainer(old.id);
      removedContainers.push(old.id);
    }
  }
  const remaining = new Set((await cri.runtime.listContainers()).map((c) => c.pod_sandbox_id));
  const removedSandboxes: string[] = [];
  for (const s of await cri.runtime.listPodSandbox()) {
    if (s.state === 'SANDBOX_NOTREADY' && !remaining.has(s.id)) {
      await cri.runtime.removePodSandbox(s.id);
      removedSandboxes.push(s.id);
    }
  }
  return { removedContainers, removedSandboxes };
}

export function startContainerGC(opts: { cri: CriClient; keepPerContainer: number; clock: Clock; logger: Logger; periodMs?: number }): () => void {
  let timer: unknown;
  let stopped = false;
  const run = async () => {
    try {
      const r = await collectContainers(opts.cri, opts.keepPerContainer);
      if (r.removedContainers.length + r.removedSandboxes.length > 0) opts.logger.info(r, 'Container garbage collection removed');
    } catch (err) {
      opts.logger.warn({ err }, 'Container garbage collection failed');
    }
    if (!stopped) timer = opts.clock.setTimeout(() => void run(), opts.periodMs ?? CONTAINER_GC_PERIOD_MS);
  };
  timer = opts.clock.setTimeout(() => void run(), opts.periodMs ?? CONTAINER_GC_PERIOD_MS);
  return () => {
    stopped = true;
    opts.clock.clearTimeout(timer);
  };
}
