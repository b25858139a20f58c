/**
 * The node conditions the kubelet owns (Go: pkg/kubelet/nodestatus/setters.go): MemoryPressure,
 * DiskPressure, PIDPressure and Ready, in that order, with Go's reasons and messages.
 * lastHeartbeatTime is the time of this update; lastTransitionTime moves only when the status does.
 *
 * The pressure conditions are True while the eviction manager reports them (`pressure`, held for
 * evictionPressureTransitionPeriod there). Differs from Go: storage errors are not part of Ready
 * (we have no volume plugin manager).
 */
import type { PressureCondition } from '../eviction/signals.js';
import { NODE_SHUTTING_DOWN } from '../node-shutdown/shutdown-groups.js';
import type { ConditionStatus } from '../api/common-types.js';
import { metaTime, type NodeCondition } from './api-objects.js';

/** What the kubelet knows about its own health, from the runtime machine and the PLEG. */
export interface NodeHealth {
  /** Null until the first runtime status check answered. */
  runtime: { runtimeReady: boolean; networkReady: boolean; message?: string } | null;
  pleg: { healthy: boolean; message?: string } | null;
  /** The eviction manager's pressure conditions (True); absent or empty: no pressure. */
  pressure?: readonly PressureCondition[];
  /** The node shutdown manager saw a shutdown coming (Go's ShutdownStatus error). */
  shuttingDown?: boolean;
}

/** Go's runtimeErrors / networkErrors / PLEG check, as the messages Go aggregates into Ready. */
export function readinessErrors(health: NodeHealth): string[] {
  const errs: string[] = [];
  const rt = health.runtime;
  if (rt === null) {
    errs.push('container runtime status check may not have completed yet');
  } else {
    if (!rt.runtimeReady) errs.push(rt.message ? `container runtime is down: ${rt.message}` : 'container runtime is down');
    if (rt.runtimeReady && !rt.networkReady) {
      errs.push(`container runtime network not ready: ${rt.message ?? 'NetworkReady=false'}`);
    }
  }
  // Go's PLEG check fails until the first relist has succeeded.
  if (health.pleg === null) errs.push('PLEG is not healthy: pleg has yet to be successful');
  else if (!health.pleg.healthy) errs.push(`PLEG is not healthy: ${health.pleg.message ?? 'pleg has yet to be successful'}`);
  if (health.shuttingDown) errs.push(NODE_SHUTTING_DOWN);
  return errs;
}

/** utilerrors.NewAggregate(errs).Error(): one message as is, several as "[a, b]". */
function aggregate(errs: string[]): string {
  return errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`;
}

interface Wanted {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
}

/** Go's setters: each pressure condition's reason and message, False and True. */
const PRESSURE: Record<PressureCondition, Record<'False' | 'True', { reason: string; message: string }>> = {
  MemoryPressure: {
    False: { reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available' },
    True: { reason: 'KubeletHasInsufficientMemory', message: 'kubelet has insufficient memory available' },
  },
  DiskPressure: {
    False: { reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' },
    True: { reason: 'KubeletHasDiskPressure', message: 'kubelet has disk pressure' },
  },
  PIDPressure: {
    False: { reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' },
    True: { reason: 'KubeletHasInsufficientPID', message: 'kubelet has insufficient PID available' },
  },
};

function pressureCondition(type: PressureCondition, health: NodeHealth): Wanted {
  const status = health.pressure?.includes(type) ? 'True' : 'False';
  return { type, status, ...PRESSURE[type][status] };
}

export function wantedConditions(health: NodeHealth): Wanted[] {
  const errs = readinessErrors(health);
  return [
    pressureCondition('MemoryPressure', health),
    pressureCondition('DiskPressure', health),
    pressureCondition('PIDPressure', health),
    errs.length === 0
      ? { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }
      : { type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: aggregate(errs) },
  ];
}

/**
 * The conditions to report at `nowMs`, given the ones last reported. Conditions owned by others
 * (e.g. NetworkUnavailable from a CNI plugin) are kept as they were, after ours.
 */
export function nodeConditions(previous: readonly NodeCondition[], health: NodeHealth, nowMs: number): NodeCondition[] {
  const now = metaTime(nowMs);
  const ours = wantedConditions(health).map((w): NodeCondition => {
    const prev = previous.find((c) => c.type === w.type);
    const transitioned = prev === undefined || prev.status !== w.status;
    return { ...w, lastHeartbeatTime: now, lastTransitionTime: transitioned ? now : prev.lastTransitionTime };
  });
  const owned = new Set(ours.map((c) => c.type));
  return [...ours, ...previous.filter((c) => !owned.has(c.type))];
}

export function isReady(conditions: readonly NodeCondition[]): boolean {
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The kubelet's event reasons for its conditions (Go: pkg/kubelet/events), by condition type and status. */
const EVENT_REASONS: Record<string, Partial<Record<ConditionStatus, string>>> = {
  MemoryPressure: { False: 'NodeHasSufficientMemory', True: 'NodeHasInsufficientMemory' },
  DiskPressure: { False: 'NodeHasNoDiskPressure', True: 'NodeHasDiskPressure' },
  PIDPressure: { False: 'NodeHasSufficientPID', True: 'NodeHasInsufficientPID' },
  Ready: { False: 'NodeNotReady', True: 'NodeReady' },
};

/**
 * The node events Go's condition setters record between two reports: a pressure condition that is
 * new or changed status, and Ready when its status changed (a new Ready condition records none).
 * Go's message for each is "Node <name> status is now: <reason>".
 */
export function conditionEventReasons(before: readonly NodeCondition[], after: readonly NodeCondition[]): string[] {
  const reasons: string[] = [];
  for (const c of after) {
    const reason = EVENT_REASONS[c.type]?.[c.status];
    if (reason === undefined) continue;
    const prev = before.find((p) => p.type === c.type);
    if (c.type === 'Ready' ? prev !== undefined && prev.status !== c.status : prev?.status !== c.status) reasons.push(reason);
  }
  return reasons;
}
