/**
 * The static CPU manager's reconcile (Go's cpumanager reconcileState, every
 * cpuManagerReconcilePeriod): every running container of an active pod is put on the cpuset it
 * should have now (its exclusive CPUs, or the shared pool, which shrinks and grows as exclusive
 * CPUs are given and freed) through UpdateContainerResources, when that differs from what this
 * loop last set for it; a failed update is tried again at the next pass. Like Go's, the first
 * pass after a start sets every such container once.
 */
import { formatCpuSet } from '../../domain/resource-managers/cpu-set.js';
import { containerNameLabel, podUidLabel } from '../../domain/runtime/labels.js';
import type { Logger } from '../../log.js';
import type { CriRuntimeService } from '../../ports/cri.js';
import type { LiveResources } from './live-resources.js';

export interface CpuReconcileDeps {
  runtime: () => Pick<CriRuntimeService, 'listContainers' | 'updateContainerResources'>;
  live: LiveResources;
  /** The pods the kubelet runs now (Go's activePods): another kubelet's containers on the same runtime are left alone. */
  activePodUids: () => readonly string[];
  logger: Logger;
}

export interface CpuReconcileResult { updated: string[]; failed: string[] }

export function createCpuReconcile(deps: CpuReconcileDeps): () => Promise<CpuReconcileResult> {
  /** The cpuset this loop last set, by container id (Go's lastUpdateState). */
  const lastSet = new Map<string, string>();
  return async () => {
    const shared = deps.live.sharedCpus();
    const result: CpuReconcileResult = { updated: [], failed: [] };
    if (shared === undefined) return result;
    const runtime = deps.runtime();
    const active = new Set(deps.activePodUids());
    const running = await runtime.listContainers({ state: { state: 'CONTAINER_RUNNING' } });
    const seen = new Set<string>();
    for (const container of running) {
      const podUid = container.labels[podUidLabel];
      const name = container.labels[containerNameLabel];
      if (podUid === undefined || name === undefined || !active.has(podUid)) continue;
      seen.add(container.id);
      const cpus = formatCpuSet(deps.live.assignments[podUid]?.[name]?.cpus ?? shared);
      if (cpus === '' || lastSet.get(container.id) === cpus) continue;
      try {
        if (!runtime.updateContainerResources) throw new Error('the CRI client cannot update container resources');
        await runtime.updateContainerResources(container.id, { cpuset_cpus: cpus });
        lastSet.set(container.id, cpus);
        result.updated.push(container.id);
        deps.logger.debug({ podUid, containerName: name, containerId: container.id, cpuSet: cpus }, 'ReconcileState: updating container');
      } catch (err) {
        result.failed.push(container.id);
        deps.logger.error({ err, podUid, containerName: name, containerId: container.id, cpuSet: cpus }, 'ReconcileState: failed to update container');
      }
    }
    for (const id of lastSet.keys()) if (!seen.has(id)) lastSet.delete(id);
    return result;
  };
}
