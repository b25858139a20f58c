/**
 * The pod's API status as the kubelet reports it (kubelet_pods.go generateAPIPodStatus and
 * convertStatusToAPIStatus, with the status manager's start time and condition transition times
 * and the probe manager's ready/started flags folded in), from the pod, the runtime's view and
 * what the pod worker knows. Pure: the time is passed in.
 *
 * - Phase: getPodPhase over init and regular statuses; a phase that is not terminal never replaces
 *   a terminal one (previous status or the API's), and a phase kept from before keeps its reason
 *   and message. An eviction (activeDeadlineSeconds) forces Failed with its reason and message.
 *   A pod the last sync found it cannot run (`blocked`, Go's canRunPod) is Pending, unless
 *   finished, with the refusal's reason and message, and its waiting containers are Blocked.
 * - Conditions: those the kubelet does not own are kept from pod.status; then
 *   PodReadyToStartContainers, Initialized, Ready, ContainersReady, PodScheduled, in Go's order.
 *   Ready also waits for the readiness gates' conditions, read among the kept ones.
 *   lastTransitionTime changes only when a condition's status does (updateLastTransitionTime).
 * - Ready: a running, started container is ready when it has no readiness probe or its last
 *   readiness result was success; an init container is ready once it exited 0. Started: a running
 *   container without a startup probe, or whose startup probe succeeded.
 * - IPs from the newest ready sandbox; a host-network pod without them gets the node's IPs.
 * - startTime: kept from before, else now.
 *
 * - Ephemeral containers get statuses as regular ones do, never ready nor started (no probe runs on
 *   them); they count for neither the phase nor the conditions.
 *
 * Differs from Go: no resize conditions, resources
 * or volume mounts in container statuses; pod IPs are not re-sorted by the node's IP family.
 */
import { podSandboxChanged } from '../runtime/compute-pod-actions.js';
import type { RuntimePodStatus } from '../runtime/pod-status.js';
import { isRestartableInitContainer } from '../runtime/init-containers.js';
import { containersReadyCondition, kubeletOwnedConditionTypes, podInitializedCondition, podReadyCondition, readyToStartContainersCondition } from './conditions.js';
import { convertContainerStatuses } from './container-statuses.js';
import { observedGenerationField, observedGenerationOf } from './observed-generation.js';
import { getPodPhase } from './phase.js';
import { podQOS } from './qos.js';
import { updateReasonCache, type PodSyncOutcome, type ReasonCache } from './sync-outcome.js';
import { rfc3339FromMs } from './timestamps.js';
import { resizeConditionsOf, resizeConditionTypes, type ResizeConditions } from '../resize/resize-conditions.js';
import type { Container, ContainerStatus, Pod, PodCondition, PodIP, PodStatus } from './types.js';

/** The activeDeadlineSeconds handler's verdict (ShouldEvict), as Go words it. */
export const DeadlineExceededReason = 'DeadlineExceeded';
export const DeadlineExceededMessage = 'Pod was active on the node longer than the specified deadline';

export interface PodStatusOptions {
  /** Last readiness probe result per container name (true = success). */
  readiness: Readonly<Record<string, boolean>>;
  /** Last startup probe result per container name. */
  startup?: Readonly<Record<string, boolean>>;
  nowMs: number;
  hostIP?: string;
  /** The node's IPs, primary first; hostIP is used when absent. */
  hostIPs?: readonly string[];
  /** The last sync's start failures, applied over `reasons`. */
  lastSyncResult?: PodSyncOutcome;
  /** The reason cache kept across syncs. */
  reasons?: ReasonCache;
  /** The status the kubelet reported last (the status manager's); pod.status otherwise. */
  previous?: PodStatus;
  /** The pod worker is terminating the pod and its containers have stopped. */
  podIsTerminal?: boolean;
  /**
   * Set when an internal module evicts the pod (activeDeadlineSeconds, the eviction manager); the
   * eviction manager's carries the DisruptionTarget condition Go adds to the status.
   */
  eviction?: { reason: string; message: string; condition?: PodCondition };
  /** Scheme of container ids, the CRI runtime_name. Default "containerd". */
  runtimeName?: string;
  /** The last sync found the pod cannot run here (PodSyncOutcome.blocked). */
  blocked?: { reason: string; message: string };
  /** Its resize conditions (none when absent); a terminal pod reports none, as Go clears them. */
  resize?: ResizeConditions;
}

const terminalPhases = new Set(['Succeeded', 'Failed']);

/** True for Succeeded and Failed. */
export function isTerminalPhase(phase: string | undefined): boolean {
  return phase !== undefined && terminalPhases.has(phase);
}

function hasProbe(containers: readonly Container[], name: string, probe: 'readinessProbe' | 'startupProbe'): boolean {
  return containers.some((c) => c.name === name && c[probe] !== undefined);
}

/** Started once running with its startup probe passed (or none); ready once started with its readiness probe passed (or none). */
function probedState(containers: readonly Container[], s: ContainerStatus, opts: PodStatusOptions): { started: boolean; ready: boolean } {
  const running = s.state?.running !== undefined;
  const started = running && (hasProbe(containers, s.name, 'startupProbe') ? opts.startup?.[s.name] === true : true);
  return { started, ready: started && (hasProbe(containers, s.name, 'readinessProbe') ? opts.readiness[s.name] === true : true) };
}

/**
 * The probe manager's UpdatePodStatus: started and ready per container. An init container is started
 * as a regular one is; an ordinary one is ready once it exited 0, a sidecar (restartable) as a
 * regular container is ready.
 */
function applyProbeResults(pod: Pod, statuses: ContainerStatus[], initStatuses: ContainerStatus[], opts: PodStatusOptions): void {
  for (const s of statuses) Object.assign(s, probedState(pod.spec.containers, s, opts));
  const inits = pod.spec.initContainers ?? [];
  for (const s of initStatuses) {
    const { started, ready } = probedState(inits, s, opts);
    const sidecar = inits.some((c) => c.name === s.name && isRestartableInitContainer(c));
    s.started = started;
    s.ready = sidecar ? ready : s.state?.terminated !== undefined && s.state.terminated.exitCode === 0;
  }
}

/**
 * The pod's IPs, primary first: the sandbox's, else for a host-network pod the node's (its primary
 * and, on a dual-stack node, its secondary). The sync starts containers with these too, so a
 * host-network container's status.podIP is the node's IP before any status was written.
 */
export function effectivePodIPs(pod: Pod, runtimeIPs: readonly string[], hostIPs: readonly string[]): string[] {
  return runtimeIPs.length > 0 ? [...runtimeIPs] : pod.spec.hostNetwork ? hostIPs.slice(0, 2) : [];
}

function podIPs(pod: Pod, runtimeStatus: RuntimePodStatus, hostIPs: readonly string[]): PodIP[] {
  return effectivePodIPs(pod, runtimeStatus.ips, hostIPs).map((ip) => ({ ip }));
}

function withTransitionTimes(conditions: PodCondition[], previous: readonly PodCondition[], nowMs: number, generation: number | undefined): PodCondition[] {
  return conditions.map((c) => {
    if (!kubeletOwnedConditionTypes.has(c.type)) return c;
    const old = previous.find((p) => p.type === c.type);
    const lastTransitionTime = old && old.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : rfc3339FromMs(nowMs);
    return {
      type: c.type, ...observedGenerationField(generation), status: c.status, lastProbeTime: null, lastTransitionTime,
      ...(c.reason ? { reason: c.reason } : {}), ...(c.message ? { message: c.message } : {}),
    };
  });
}

export function generateAPIPodStatus(pod: Pod, runtimeStatus: RuntimePodStatus, opts: PodStatusOptions): PodStatus {
  const apiStatus = pod.status ?? {};
  const previous = opts.previous ?? apiStatus;
  const runtimeName = opts.runtimeName ?? 'containerd';
  const reasons = opts.lastSyncResult ? updateReasonCache(opts.reasons ?? {}, opts.lastSyncResult) : (opts.reasons ?? {});
  const inits = pod.spec.initContainers ?? [];
  const hasInitContainers = inits.length > 0;
  const generation = observedGenerationOf(pod, previous);
  const resizeSettled = !opts.resize?.inProgress;

  const containerStatuses = convertContainerStatuses({
    pod, runtimeStatus, containers: pod.spec.containers, previous: previous.containerStatuses, hasInitContainers, isInitContainer: false, reasons, runtimeName, resizeSettled,
  });
  const initContainerStatuses = convertContainerStatuses({
    pod, runtimeStatus, containers: inits, previous: previous.initContainerStatuses, hasInitContainers, isInitContainer: true, reasons, runtimeName, resizeSettled,
  });
  applyProbeResults(pod, containerStatuses, initContainerStatuses, opts);
  const ephemeral = pod.spec.ephemeralContainers ?? [];
  const ephemeralContainerStatuses = ephemeral.length === 0 ? [] : convertContainerStatuses({
    pod, runtimeStatus, containers: ephemeral, previous: previous.ephemeralContainerStatuses, hasInitContainers, isInitContainer: false, reasons, runtimeName, resizeSettled,
  });

  const all = [...containerStatuses, ...initContainerStatuses];
  let phase = getPodPhase(pod, all, opts.podIsTerminal ?? false);
  // Three-way merge: a terminal phase, once reported, stays.
  if (!isTerminalPhase(phase)) {
    if (isTerminalPhase(previous.phase)) phase = previous.phase!;
    else if (isTerminalPhase(apiStatus.phase)) phase = apiStatus.phase!;
  }
  let reason: string | undefined;
  let message: string | undefined;
  if (phase === previous.phase) {
    reason = previous.reason || apiStatus.reason;
    message = previous.message || apiStatus.message;
  }
  if (opts.eviction) {
    phase = 'Failed';
    reason = opts.eviction.reason;
    message = opts.eviction.message;
  }
  if (isTerminalPhase(apiStatus.phase)) phase = apiStatus.phase!;

  const initsAndRegular = [...initContainerStatuses, ...containerStatuses];
  const conditions: PodCondition[] = [
    ...(apiStatus.conditions ?? []).filter((c) => !kubeletOwnedConditionTypes.has(c.type) && !resizeConditionTypes.has(c.type)),
    ...(opts.resize && !isTerminalPhase(phase) ? resizeConditionsOf(opts.resize, previous.conditions ?? [], opts.nowMs) : []),
    readyToStartContainersCondition(!podSandboxChanged(pod, runtimeStatus).changed),
    podInitializedCondition(pod, initsAndRegular, phase),
  ];
  // Ready reads the readiness gates' conditions among those gathered so far, as Go's does.
  conditions.push(
    podReadyCondition(pod, conditions, initsAndRegular, phase),
    containersReadyCondition(pod, initsAndRegular, phase),
    { type: 'PodScheduled', status: 'True' },
  );
  const evictionCondition = opts.eviction?.condition;
  if (evictionCondition) {
    // Go's podutil.UpdatePodCondition: the eviction's condition replaces one of its type.
    const at = conditions.findIndex((c) => c.type === evictionCondition.type);
    if (at >= 0) conditions.splice(at, 1);
    const old = (previous.conditions ?? []).find((c) => c.type === evictionCondition.type);
    const lastTransitionTime = old?.status === evictionCondition.status && old.lastTransitionTime ? old.lastTransitionTime : rfc3339FromMs(opts.nowMs);
    conditions.push({ ...evictionCondition, ...observedGenerationField(generation), lastTransitionTime });
  }

  const hostIPs = opts.hostIPs ?? (opts.hostIP ? [opts.hostIP] : []);
  const ips = podIPs(pod, runtimeStatus, hostIPs);
  const status: PodStatus = {
    ...observedGenerationField(generation),
    phase,
    conditions: withTransitionTimes(conditions, previous.conditions ?? [], opts.nowMs, generation),
    ...(message ? { message } : {}),
    ...(reason ? { reason } : {}),
    ...(hostIPs[0] !== undefined ? { hostIP: hostIPs[0], hostIPs: hostIPs.map((ip) => ({ ip })) } : {}),
    ...(ips[0] !== undefined ? { podIP: ips[0].ip, podIPs: ips } : {}),
    startTime: previous.startTime ?? apiStatus.startTime ?? rfc3339FromMs(opts.nowMs),
    ...(hasInitContainers ? { initContainerStatuses } : {}),
    containerStatuses,
    ...(ephemeralContainerStatuses.length > 0 ? { ephemeralContainerStatuses } : {}),
    qosClass: podQOS(pod),
  };
  if (opts.blocked) applyBlocked(status, opts.blocked);
  return status;
}

/**
 * Kubelet.SyncPod's rewrite of the status of a pod canRunPod refused: Pending unless already
 * finished, the refusal as reason and message, and every waiting container Blocked.
 */
function applyBlocked(status: PodStatus, blocked: { reason: string; message: string }): void {
  if (!isTerminalPhase(status.phase)) status.phase = 'Pending';
  status.reason = blocked.reason;
  status.message = blocked.message;
  for (const s of [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])]) {
    // A copy: the waiting state may be the previous status's own object.
    if (s.state?.waiting) s.state = { waiting: { ...s.state.waiting, reason: 'Blocked' } };
  }
}
