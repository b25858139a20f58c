/**
 * The pod conditions the kubelet owns (pkg/kubelet/status/generate.go), from the container
 * statuses and the phase: PodReadyToStartContainers, Initialized, Ready, ContainersReady and
 * PodScheduled. Reasons and messages are Go's, lists printed as Go prints a []string ("[a b]").
 * Ready follows ContainersReady, and when that is True also needs every readiness gate's condition
 * (set by others through the status subresource) to be True. A sidecar (restartable init
 * container) must be ready for ContainersReady, and started for Initialized.
 */
import { isRestartableInitContainer } from '../runtime/init-containers.js';
import { hasAnyRegularContainerStarted } from './phase.js';
import type { ContainerStatus, Pod, PodCondition, PodPhase } from './types.js';

export const UnknownContainerStatuses = 'UnknownContainerStatuses';
export const PodCompleted = 'PodCompleted';
export const PodFailed = 'PodFailed';
export const ContainersNotReady = 'ContainersNotReady';
export const ContainersNotInitialized = 'ContainersNotInitialized';
export const ReadinessGatesNotReady = 'ReadinessGatesNotReady';

/** PodConditionsByKubelet: the condition types a kubelet sets; the rest are kept as they are. */
export const kubeletOwnedConditionTypes: ReadonlySet<string> = new Set([
  'PodScheduled', 'Ready', 'Initialized', 'ContainersReady', 'PodReadyToStartContainers',
]);

const goList = (names: readonly string[]): string => `[${names.join(' ')}]`;

function messageFor(unknown: readonly string[], other: readonly string[], otherWord: string): string {
  const parts: string[] = [];
  if (unknown.length > 0) parts.push(`containers with unknown status: ${goList(unknown)}`);
  if (other.length > 0) parts.push(`containers with ${otherWord} status: ${goList(other)}`);
  return parts.join(', ');
}

function byName(statuses: readonly ContainerStatus[], name: string): ContainerStatus | undefined {
  return statuses.find((s) => s.name === name);
}

export function containersReadyCondition(pod: Pod, statuses: readonly ContainerStatus[] | undefined, phase: PodPhase): PodCondition {
  if (statuses === undefined) return { type: 'ContainersReady', status: 'False', reason: UnknownContainerStatuses };
  const unknown: string[] = [];
  const unready: string[] = [];
  // Sidecars first, then the regular containers: both must be ready (Go's order, for the message).
  const sidecars = (pod.spec.initContainers ?? []).filter(isRestartableInitContainer);
  for (const c of [...sidecars, ...pod.spec.containers]) {
    const s = byName(statuses, c.name);
    if (!s) unknown.push(c.name);
    else if (!s.ready) unready.push(c.name);
  }
  if (phase === 'Succeeded' && unknown.length === 0) return { type: 'ContainersReady', status: 'False', reason: PodCompleted };
  if (phase === 'Failed') return { type: 'ContainersReady', status: 'False', reason: PodFailed };
  const message = messageFor(unknown, unready, 'unready');
  if (message !== '') return { type: 'ContainersReady', status: 'False', reason: ContainersNotReady, message };
  return { type: 'ContainersReady', status: 'True' };
}

/** Why a readiness gate holds the pod back, in Go's words; null when its condition is True. */
function unreadyGateMessage(conditionType: string, conditions: readonly PodCondition[]): string | null {
  const condition = conditions.find((c) => c.type === conditionType);
  if (!condition) return `corresponding condition of pod readiness gate ${JSON.stringify(conditionType)} does not exist.`;
  if (condition.status !== 'True') return `the status of pod readiness gate ${JSON.stringify(conditionType)} is not "True", but ${condition.status}`;
  return null;
}

/**
 * GeneratePodReadyCondition: ContainersReady's verdict while it is not True; then False with
 * ReadinessGatesNotReady while a readiness gate's condition (looked up in `conditions`) is missing or
 * not True; else True.
 */
export function podReadyCondition(pod: Pod, conditions: readonly PodCondition[], statuses: readonly ContainerStatus[] | undefined, phase: PodPhase): PodCondition {
  const containersReady = containersReadyCondition(pod, statuses, phase);
  if (containersReady.status !== 'True') return { ...containersReady, type: 'Ready' };
  const unready = (pod.spec.readinessGates ?? []).map((g) => unreadyGateMessage(g.conditionType, conditions)).filter((m) => m !== null);
  if (unready.length > 0) return { type: 'Ready', status: 'False', reason: ReadinessGatesNotReady, message: unready.join(', ') };
  return { type: 'Ready', status: 'True' };
}

/**
 * NeedToReconcilePodReadiness: the pod has readiness gates and the Ready condition its status shows
 * is not the one its conditions now call for (status or message), as after someone else changed a
 * gate's condition. Read on a pod as the API server has it.
 */
export function needToReconcilePodReadiness(pod: Pod): boolean {
  if ((pod.spec.readinessGates ?? []).length === 0) return false;
  const status = pod.status ?? {};
  const current = status.conditions?.find((c) => c.type === 'Ready');
  if (!current) return false;
  const wanted = podReadyCondition(pod, status.conditions ?? [], status.containerStatuses, status.phase ?? 'Pending');
  return current.status !== wanted.status || (current.message ?? '') !== (wanted.message ?? '');
}

export function podInitializedCondition(pod: Pod, statuses: readonly ContainerStatus[] | undefined, phase: PodPhase): PodCondition {
  const inits = pod.spec.initContainers ?? [];
  if (statuses === undefined && inits.length > 0) return { type: 'Initialized', status: 'False', reason: UnknownContainerStatuses };
  const known = statuses ?? [];
  const unknown: string[] = [];
  const incomplete: string[] = [];
  for (const c of inits) {
    const s = byName(known, c.name);
    if (!s) unknown.push(c.name);
    // A sidecar has done its part once started; another init container once it succeeded (ready).
    else if (isRestartableInitContainer(c) ? s.started !== true : !s.ready) incomplete.push(c.name);
  }
  if (phase === 'Succeeded' && unknown.length === 0) return { type: 'Initialized', status: 'True', reason: PodCompleted };
  if (hasAnyRegularContainerStarted(pod, known)) return { type: 'Initialized', status: 'True' };
  const message = messageFor(unknown, incomplete, 'incomplete');
  if (message !== '') return { type: 'Initialized', status: 'False', reason: ContainersNotInitialized, message };
  return { type: 'Initialized', status: 'True' };
}

/** PodReadyToStartContainers: True once a sandbox with its network exists and needs no replacing. */
export function readyToStartContainersCondition(sandboxReady: boolean): PodCondition {
  return { type: 'PodReadyToStartContainers', status: sandboxReady ? 'True' : 'False' };
}
