/**
 * Go's validateMemoryResizeAction: before any memory limit goes down, check the pod and each
 * container whose limit decreases (or gains a limit) are using less than the new limit; otherwise
 * the whole resize is refused before anything is changed (the kernel would reclaim or OOM-kill to
 * reach it), and retried at the next sync. A usage the runtime does not report refuses it too.
 */
import type { ResizeStep } from './resize-plan.js';

export interface DecreasingMemoryLimits {
  /** The pod cgroup's new limit when it decreases. */
  pod?: number;
  /** The new limit of each container whose limit decreases, by container id. */
  containers: { id: string; name: string; limit: number }[];
}

/** What the plan lowers; nothing when no memory limit goes down. */
export function decreasingMemoryLimits(steps: readonly ResizeStep[], currentPodLimit: number | undefined): DecreasingMemoryLimits {
  const out: DecreasingMemoryLimits = { containers: [] };
  for (const step of steps) {
    if (step.resource !== 'memory') continue;
    if (step.kind === 'podCgroup') {
      const limit = step.config.memoryLimitBytes;
      if (limit !== undefined && limit >= 0 && (currentPodLimit === undefined || currentPodLimit < 0 || limit < currentPodLimit)) out.pod = limit;
      continue;
    }
    const { desired, current } = step.container;
    if (desired.memoryLimitBytes !== 0 && (current.memoryLimitBytes === 0 || desired.memoryLimitBytes < current.memoryLimitBytes)) {
      out.containers.push({ id: step.container.id, name: step.container.name, limit: desired.memoryLimitBytes });
    }
  }
  return out;
}

export function hasDecreasingMemoryLimits(limits: DecreasingMemoryLimits): boolean {
  return limits.pod !== undefined || limits.containers.length > 0;
}

/** Memory in use, in bytes: the pod's and each container's by id; undefined where not reported. */
export interface MemoryUsage {
  pod?: number;
  containers: Readonly<Record<string, number | undefined>>;
}

/** Why the decreases cannot be applied now (Go's message), or null when they can. */
export function memoryResizeRefusal(limits: DecreasingMemoryLimits, usage: MemoryUsage): string | null {
  const errs: string[] = [];
  if (limits.pod !== undefined) {
    if (usage.pod === undefined) errs.push('missing pod memory usage');
    else if (usage.pod >= limits.pod) errs.push(`attempting to set pod memory limit (${limits.pod}) below current usage (${usage.pod})`);
  }
  for (const c of limits.containers) {
    const used = usage.containers[c.id];
    if (used === undefined) errs.push(`missing container ${JSON.stringify(c.name)} memory usage`);
    else if (used >= c.limit) errs.push(`attempting to set container ${JSON.stringify(c.name)} memory limit (${c.limit}) below current usage (${used})`);
  }
  if (errs.length === 0) return null;
  return `cannot decrease memory limits: ${errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`}`;
}
