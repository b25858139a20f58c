/**
 * Graceful node shutdown's decisions (Go: pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go):
 * the grace period classes from the configuration (migrateConfig, or
 * shutdownGracePeriodByPodPriority), the time to ask logind for, and which pods go in which class
 * (groupByPriority) with the grace period each gets. Classes are killed lowest priority first; each
 * waits for its pods at most its own grace period.
 */
import { parseGoDuration } from '../config/duration.js';
import type { ShutdownGracePeriodByPodPriority } from '../config/types.js';
import type { AdmissionResult } from '../pod/admission.js';
import { SYSTEM_CRITICAL_PRIORITY } from '../pod/critical.js';

/** The status of a pod killed for the shutdown: Failed with this reason and message. */
export const NODE_SHUTDOWN_REASON = 'Terminated';
export const NODE_SHUTDOWN_MESSAGE = 'Pod was terminated in response to imminent node shutdown.';
/** Admission's answer while the node shuts down. */
export const NODE_SHUTDOWN_NOT_ADMITTED_REASON = 'NodeShutdown';
export const NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE = 'Pod was rejected as the node is shutting down.';
/** Go's ShutdownStatus error, which the Ready condition's message carries. */
export const NODE_SHUTTING_DOWN = 'node is shutting down';

/** Go's DefaultPriorityWhenNoDefaultClassExists. */
const DEFAULT_PRIORITY = 0;

export interface ShutdownClass { priority: number; gracePeriodSeconds: number }

/** The original two settings as two classes: regular pods get the rest of the period, critical pods their share. */
export function migrateConfig(requestedSeconds: number, criticalSeconds: number): ShutdownClass[] {
  if (requestedSeconds === 0) return [];
  const regular = requestedSeconds - criticalSeconds;
  if (regular < 0) return [];
  return [
    { priority: DEFAULT_PRIORITY, gracePeriodSeconds: regular },
    { priority: SYSTEM_CRITICAL_PRIORITY, gracePeriodSeconds: criticalSeconds },
  ];
}

export interface ShutdownSettings {
  shutdownGracePeriod: string;
  shutdownGracePeriodCriticalPods: string;
  shutdownGracePeriodByPodPriority: readonly ShutdownGracePeriodByPodPriority[];
}

/**
 * The classes, lowest priority first; empty means no graceful shutdown (Go's managerStub).
 * shutdownGracePeriodByPodPriority wins when its gate is on and it is set.
 */
export function shutdownClasses(settings: ShutdownSettings, byPodPriorityGate: boolean): ShutdownClass[] {
  const classes = byPodPriorityGate && settings.shutdownGracePeriodByPodPriority.length > 0
    ? settings.shutdownGracePeriodByPodPriority.map((p) => ({ priority: p.priority, gracePeriodSeconds: p.shutdownGracePeriodSeconds }))
    : migrateConfig(Math.trunc(parseGoDuration(settings.shutdownGracePeriod) / 1000), Math.trunc(parseGoDuration(settings.shutdownGracePeriodCriticalPods) / 1000));
  return [...classes].sort((a, b) => a.priority - b.priority);
}

/** Go's periodRequested: the sum of the classes' periods, what logind must wait at most. */
export function periodRequestedSeconds(classes: readonly ShutdownClass[]): number {
  return classes.reduce((sum, c) => sum + c.gracePeriodSeconds, 0);
}

export interface ShutdownPod {
  uid: string;
  priority?: number;
  terminationGracePeriodSeconds?: number;
}

export interface ShutdownGroup extends ShutdownClass {
  /** Each pod with its grace period: the class's, or the pod's own when that is not longer. */
  pods: { uid: string; gracePeriodSeconds: number }[];
}

/**
 * Every pod in the class of the highest priority not above its own (a pod below every class goes
 * to the lowest, one above every class to the highest); classes keep their order, empty ones too.
 */
export function groupByPriority(classes: readonly ShutdownClass[], pods: readonly ShutdownPod[]): ShutdownGroup[] {
  const groups: ShutdownGroup[] = classes.map((c) => ({ ...c, pods: [] }));
  if (groups.length === 0) return groups;
  for (const pod of pods) {
    const priority = pod.priority ?? 0;
    let index = groups.findIndex((g) => g.priority >= priority);
    if (index === -1) index = groups.length - 1;
    else if (index > 0 && (groups[index] as ShutdownGroup).priority > priority) index--;
    const group = groups[index] as ShutdownGroup;
    const own = pod.terminationGracePeriodSeconds;
    group.pods.push({ uid: pod.uid, gracePeriodSeconds: own !== undefined && own <= group.gracePeriodSeconds ? own : group.gracePeriodSeconds });
  }
  return groups;
}

/** Go's shutdown admit handler: every new pod is refused while the node shuts down. */
export function admitDuringShutdown(shuttingDown: boolean): AdmissionResult {
  return shuttingDown ? { admit: false, reason: NODE_SHUTDOWN_NOT_ADMITTED_REASON, message: NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE } : { admit: true };
}
