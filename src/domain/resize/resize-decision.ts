/**
 * Whether a resize the pod's spec asks for can be allocated now (Go's handlePodResourcesResize and
 * canResizePod, in their order):
 * 1. the spec asks what is allocated: nothing to do (a pending resize that was reverted ends);
 * 2. a static pod is never resized: Infeasible;
 * 3. a Guaranteed pod whose CPU (or memory) changes under the static CPU (memory) manager: Infeasible,
 *    its exclusive share cannot follow;
 * 4. more than the node's allocatable in all: Infeasible, it would never fit;
 * 5. the admit handlers against what the other pods hold: Deferred, with the refusal's message,
 *    retried when pods go or periodically;
 * 6. otherwise allocated: the spec's resources become the allocation.
 * Pure; the syncLoop keeps the result and the pending list.
 */
import { admitPod } from '../pod/admission.js';
import type { AdmissionNode } from '../pod/admission-node.js';
import { isStaticPod } from '../pod/phase.js';
import type { NodeUsage } from '../pod/node-usage.js';
import { computePodQOS } from '../pod/qos.js';
import { podRequests } from '../pod/resource-requests.js';
import type { Pod } from '../pod/types.js';
import { allocationFromPod, resizableContainers, sameRequirements, specMatchesAllocation, type PodAllocation } from './allocation.js';

export type ResizePendingReason = 'Infeasible' | 'Deferred';

export type ResizeDecision =
  | { kind: 'unchanged' }
  | { kind: 'allocated'; allocation: PodAllocation }
  | { kind: 'pending'; reason: ResizePendingReason; message: string };

export interface ResizeContext {
  node: AdmissionNode;
  /** What the other active pods hold, at their allocated resources. */
  others: NodeUsage;
  cpuManagerStatic: boolean;
  memoryManagerStatic: boolean;
}

/** Does any resizable container ask another amount of `resource` than allocated (Go's guaranteedPodResourceResizeRequired)? */
function resourceChanges(pod: Pod, allocation: PodAllocation, resource: 'cpu' | 'memory'): boolean {
  return resizableContainers(pod).some((c) => {
    const wanted = c.resources?.requests?.[resource];
    const allocated = allocation[c.name]?.requests?.[resource];
    return !sameRequirements({ requests: wanted === undefined ? {} : { [resource]: wanted } }, { requests: allocated === undefined ? {} : { [resource]: allocated } });
  });
}

function infeasibleUnderStaticManagers(pod: Pod, allocation: PodAllocation, ctx: ResizeContext): string | null {
  if (computePodQOS(pod) !== 'Guaranteed') return null;
  if (ctx.cpuManagerStatic && resourceChanges(pod, allocation, 'cpu')) return 'Resize is infeasible for Guaranteed Pods alongside CPU Manager policy "static"';
  if (ctx.memoryManagerStatic && resourceChanges(pod, allocation, 'memory')) return 'Resize is infeasible for Guaranteed Pods alongside Memory Manager policy "Static"';
  return null;
}

function beyondAllocatable(pod: Pod, node: AdmissionNode): string | null {
  const requested = podRequests(pod);
  const cpu = requested['cpu'] ?? 0;
  const memory = requested['memory'] ?? 0;
  const { cpuMillis, memoryBytes } = node.allocatable;
  if (memory > memoryBytes) return `Node didn't have enough capacity: memory, requested: ${memory}, capacity: ${memoryBytes}`;
  if (cpu > cpuMillis) return `Node didn't have enough capacity: cpu, requested: ${cpu}, capacity: ${cpuMillis}`;
  return null;
}

export function decideResize(pod: Pod, allocation: PodAllocation, ctx: ResizeContext): ResizeDecision {
  if (specMatchesAllocation(pod, allocation)) return { kind: 'unchanged' };
  if (isStaticPod(pod)) return { kind: 'pending', reason: 'Infeasible', message: 'In-place resize of static-pods is not supported' };
  let infeasible: string | null;
  try {
    infeasible = infeasibleUnderStaticManagers(pod, allocation, ctx) ?? beyondAllocatable(pod, ctx.node);
  } catch (error) {
    // A quantity that does not parse: the API server validates resizes, so only a broken source gets here.
    return { kind: 'pending', reason: 'Infeasible', message: (error as Error).message };
  }
  if (infeasible) return { kind: 'pending', reason: 'Infeasible', message: infeasible };
  const admission = admitPod(pod, ctx.node, ctx.others);
  if (!admission.admit) return { kind: 'pending', reason: 'Deferred', message: admission.message };
  return { kind: 'allocated', allocation: allocationFromPod(pod) };
}
