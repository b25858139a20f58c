/**
 * A pod config update (Go's syncLoopIteration on configCh: HandlePodAdditions, HandlePodUpdates,
 * HandlePodRemoves, HandlePodReconcile).
 *
 * - ADD admits the pod (canAdmitPod: a uid or a name the kubelet cannot use first, then Go's admit
 *   handlers in order: the eviction manager's, the sysctls', the resource managers' (exclusive CPUs,
 *   devices, NUMA memory: admit.ts of domain/resource-managers), the predicates, the node shutdown
 *   manager's) against the pods that count as active, and starts its worker with what the resource
 *   managers gave it (kept in `resources`, and persisted when it is something); a refused pod is
 *   kept as `rejected` with Go's Failed status, reported and emitted. A pod refused once stays
 *   Failed (Go keeps a rejected pod's status).
 * - UPDATE hands an active pod's worker the new spec, at its allocation: a resize it asks is weighed
 *   first (pod-resize.ts). Admission counts every pod at its allocation.
 * - DELETE and REMOVE ask the worker to kill the pod with its grace period, and its probes to stop.
 * - RECONCILE (only the status changed in the API server) hands the worker the pod's new status
 *   when a readiness gate's condition changed what Ready should say.
 * A uid whose runtime-only worker is still killing it waits: the source's latest form is kept and
 * added once the orphan is gone. In cluster mode a pod node affinity alone refused waits too, while
 * the Node is read again (live-node.ts).
 */
import { admitUnderPressure } from '../eviction/admission.js';
import { admitDuringShutdown } from '../node-shutdown/shutdown-groups.js';
import { admitPod, refusedOnlyForNodeAffinity, rejectedPodStatus } from '../pod/admission.js';
import { needToReconcilePodReadiness } from '../pod/conditions.js';
import { isActiveForAdmission, killGracePeriod } from '../pod/lifecycle.js';
import { usageOf, withPod, type NodeUsage } from '../pod/node-usage.js';
import { admitPodIdentity } from '../pod/spec-identity.js';
import { admitSysctls, sysctlAllowlist } from '../pod/sysctls.js';
import type { Pod } from '../pod/types.js';
import { admitResources } from '../resource-managers/admit.js';
import { keptPodAssignment, withoutPod, withPodAssignment, type PodAssignment } from '../resource-managers/assignments.js';
import { allocatedPod } from '../resize/allocation.js';
import { allocationOf, withAllocation } from '../resize/allocation-assignments.js';
import { addCpuPinning, cpuPinningCounts, NO_CPU_PINNING } from '../resource-managers/cpu-pinning.js';
import type { Decision, SyncLoopCommand } from './commands.js';
import { decideNodeRefresh } from './live-node.js';
import { currentAllocation, retryDeferredResizes, weighResize } from './pod-resize.js';
import { probeWorkersOf } from './probe-workers.js';
import { isRunningLifecycle, type SyncLoopSettings, type SyncLoopState } from './state.js';

export type PodOperation = 'ADD' | 'UPDATE' | 'DELETE' | 'REMOVE' | 'RECONCILE';

export interface PodConfigUpdate {
  op: PodOperation;
  source: string;
  pods: Pod[];
  /** Added again once the Node was read again: a node affinity refusal is final. */
  afterNodeRefresh?: boolean;
}

type State = Pick<SyncLoopState, 'pods' | 'orphans' | 'pressure' | 'shuttingDown' | 'node' | 'awaitingNode' | 'nodeRefreshing' | 'resources' | 'inventory' | 'cpuPinning'>;

export function decidePodConfigUpdate(state: State, settings: SyncLoopSettings, update: PodConfigUpdate): Decision<State> {
  const pods = { ...state.pods };
  const orphans = { ...state.orphans };
  const awaitingNode = { ...state.awaitingNode };
  let resources = state.resources;
  let cpuPinning = state.cpuPinning ?? NO_CPU_PINNING;
  const commands: SyncLoopCommand[] = [];
  // What the active pods hold, counted once per update and grown as pods are admitted.
  let usage: NodeUsage | null = null;
  // A resize asked in this update: the deferred ones are weighed again after it (Go's pod_updated trigger).
  let resized = false;
  /** A running pod's new spec (already in `pods`), its resize weighed: its worker runs it at its allocation. */
  const tellNewSpec = (uid: string, previous: Pod, pod: Pod): void => {
    const wasPending = pods[uid]?.resizePending !== undefined;
    const outcome = weighResize({ pods, resources, node: state.node, inventory: state.inventory }, uid, pod, currentAllocation({ resources }, uid, previous));
    Object.assign(pods, outcome.state.pods);
    resources = outcome.state.resources;
    resized ||= outcome.note.pending !== null || outcome.note.startedGeneration !== undefined;
    commands.push(...outcome.commands, { kind: 'tellWorker', podUid: uid, message: { type: 'pod.spec.updated', pod: outcome.workerPod, ...(wasPending || outcome.note.pending || outcome.note.startedGeneration !== undefined ? { resize: outcome.note } : {}) } });
  };
  for (const pod of update.pods) {
    const uid = pod.metadata.uid ?? '';
    const waiting = awaitingNode[uid];
    if (waiting) {
      // Not admitted yet: it is admitted in its latest form once the Node is read, or forgotten if it left its source.
      if (update.op === 'REMOVE') delete awaitingNode[uid];
      else if (update.op !== 'RECONCILE') awaitingNode[uid] = { ...waiting, pod };
      continue;
    }
    const orphan = orphans[uid];
    if (orphan) {
      if (update.op === 'REMOVE') {
        orphans[uid] = { deferred: null };
        // A pod failed for a crashed worker is being killed as an orphan: gone from its source, it is forgotten.
        if (pods[uid]?.lifecycle === 'rejected') delete pods[uid];
      } else if (update.op === 'ADD' || (orphan.deferred && update.op !== 'RECONCILE')) {
        orphans[uid] = { deferred: { pod, source: update.source } };
      }
      continue;
    }
    const entry = pods[uid];
    switch (update.op) {
      case 'ADD': {
        if (entry?.lifecycle === 'rejected') {
          pods[uid] = { ...entry, pod, removed: false };
          break;
        }
        if (entry && entry.lifecycle !== 'terminated') {
          pods[uid] = { ...entry, pod, removed: false };
          tellNewSpec(uid, entry.pod, pod);
          break;
        }
        usage ??= usageOf(Object.entries(pods).filter(([, p]) => isActiveForAdmission(p.lifecycle, p.status)).map(([other, p]) => allocatedPod(p.pod, allocationOf(resources[other]))));
        // After a restart the allocation kept for the pod is what it was admitted with, not its spec (Go's AddPod).
        const kept = allocationOf(resources[uid]);
        const desired = pod;
        const admitted = allocatedPod(desired, kept);
        const identity = admitPodIdentity(admitted);
        const underPressure = identity.admit ? admitUnderPressure(admitted, state.pressure) : identity;
        const sysctls = underPressure.admit ? admitSysctls(admitted, sysctlAllowlist(settings.allowedUnsafeSysctls ?? [])) : underPressure;
        const resourceAdmission = sysctls.admit ? admitResources({ pod: admitted, inventory: state.inventory, assignments: resources }) : null;
        if (resourceAdmission) cpuPinning = addCpuPinning(cpuPinning, cpuPinningCounts(admitted, state.inventory, resourceAdmission));
        const allocated = resourceAdmission ?? sysctls;
        const predicates = allocated.admit ? admitPod(admitted, state.node, usage) : allocated;
        const admission = predicates.admit ? admitDuringShutdown(state.shuttingDown === true) : predicates;
        if (!admission.admit && admission.reason === 'NodeAffinity' && settings.liveNode && !update.afterNodeRefresh && refusedOnlyForNodeAffinity(admitted, state.node, usage)) {
          awaitingNode[uid] = { pod, source: update.source, asked: false };
          break;
        }
        if (!admission.admit) {
          const status = rejectedPodStatus(pod, admission);
          pods[uid] = { pod, lifecycle: 'rejected', removed: false, status, probedStarts: {} };
          // A share kept from before a restart goes with the pod it belonged to.
          if (uid in resources) {
            resources = withoutPod(resources, uid);
            commands.push({ kind: 'resourcesChanged', assignments: resources });
          }
          commands.push(
            { kind: 'reportStatus', podUid: uid, status },
            { kind: 'emit', event: { type: 'pod.admission.rejected', pod: { namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name, uid }, reason: admission.reason, message: admission.message } },
          );
          break;
        }
        usage = withPod(usage, admitted);
        const assignment: PodAssignment = withAllocation((resourceAdmission?.admit ? keptPodAssignment(resourceAdmission.assignment) : null) ?? {}, kept ?? null);
        if (Object.keys(assignment).length > 0 || uid in resources) {
          resources = withPodAssignment(resources, uid, assignment);
          commands.push({ kind: 'resourcesChanged', assignments: resources });
        }
        commands.push({ kind: 'startWorker', pod: admitted, assignment });
        pods[uid] = { pod: desired, lifecycle: 'active', removed: false, status: null, probedStarts: {} };
        // A resize asked while the kubelet was down is weighed once the pod runs at its allocation.
        if (kept && admitted !== desired) tellNewSpec(uid, admitted, desired);
        break;
      }
      case 'UPDATE':
        if (entry?.lifecycle === 'active') {
          pods[uid] = { ...entry, pod };
          tellNewSpec(uid, entry.pod, pod);
        }
        break;
      case 'DELETE':
      case 'REMOVE':
        if (!entry) break;
        if (isRunningLifecycle(entry.lifecycle)) {
          const reason = update.op === 'DELETE' ? 'deleted' : 'removed from its source';
          commands.push({ kind: 'tellWorker', podUid: uid, message: { type: 'pod.kill.requested', gracePeriodSeconds: killGracePeriod(pod), reason } });
          for (const id of probeWorkersOf(uid, entry)) commands.push({ kind: 'tellProbe', id, message: { type: 'probe.pod.terminating' } });
          pods[uid] = { ...entry, pod, lifecycle: 'terminating', removed: entry.removed || update.op === 'REMOVE' };
        } else if (update.op === 'REMOVE') {
          delete pods[uid];
        }
        break;
      case 'RECONCILE':
        // The other reconciles, the echoes of the kubelet's own patches mostly, wake nobody.
        if (entry && isRunningLifecycle(entry.lifecycle) && needToReconcilePodReadiness(pod)) {
          commands.push({ kind: 'tellWorker', podUid: uid, message: { type: 'pod.status.reconciled', pod } });
          pods[uid] = { ...entry, pod };
        }
        break;
    }
  }
  if (resized) {
    const retried = retryDeferredResizes({ pods, resources, node: state.node, inventory: state.inventory });
    Object.assign(pods, retried.state.pods);
    resources = retried.state.resources;
    commands.push(...retried.commands);
  }
  const counted = cpuPinning.requests > 0 || state.cpuPinning !== undefined ? { cpuPinning } : {};
  const refresh = decideNodeRefresh({ ...state, pods, orphans, awaitingNode, resources, ...counted });
  return { state: refresh.state, commands: [...commands, ...refresh.commands] };
}
