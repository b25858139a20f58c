/**
 * Comparing and preparing pod statuses for the API server (Go's pkg/kubelet/status
 * status_manager.go: normalizeStatus, isPodStatusByKubeletEqual, updateLastTransitionTime, and
 * statusutil.PatchPodStatus). Pure.
 */
import type { ContainerStatus, PodCondition, PodStatus } from '../pod/types.js';

const byName = (a: ContainerStatus, b: ContainerStatus): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The status as it is compared: container statuses sorted by name (Go sorts them too) and the
 * conditions' lastProbeTime dropped, since a probe time moving is a heartbeat, not a change. The
 * lists are new; what is in them is the input's, left unchanged.
 */
export function normalizeStatus(status: PodStatus): PodStatus {
  const copy: PodStatus = { ...status };
  if (copy.containerStatuses) copy.containerStatuses = [...copy.containerStatuses].sort(byName);
  if (copy.initContainerStatuses) copy.initContainerStatuses = [...copy.initContainerStatuses].sort(byName);
  if (copy.ephemeralContainerStatuses) copy.ephemeralContainerStatuses = [...copy.ephemeralContainerStatuses].sort(byName);
  if (copy.conditions) {
    copy.conditions = copy.conditions
      .map(({ lastProbeTime: _ignored, ...rest }) => rest)
      .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  }
  return copy;
}

/**
 * Whether two JSON values would print alike with their keys in any order: a field set to undefined
 * is no field, as in JSON. Walked rather than printed: the resync compares every pod's statuses.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const [x, y] = [a as Record<string, unknown>, b as Record<string, unknown>];
  let fields = 0;
  for (const key of Object.keys(x)) {
    if (x[key] === undefined) continue;
    if (!sameJson(x[key], y[key])) return false;
    fields++;
  }
  for (const key of Object.keys(y)) if (y[key] !== undefined) fields--;
  return fields === 0;
}

/** True when the two statuses differ only in heartbeat-like fields or order. */
export function isSameStatus(a: PodStatus | null | undefined, b: PodStatus | null | undefined): boolean {
  if (!a || !b) return a === b;
  return a === b || sameJson(normalizeStatus(a), normalizeStatus(b));
}

/**
 * Go's updateLastTransitionTime: a condition whose status did not change keeps the transition
 * time it had before, so a pod worker that stamps "now" on every status does not move it; and
 * the pod's startTime, once set, stays.
 */
export function keepTransitionTimes(previous: PodStatus | null | undefined, next: PodStatus): PodStatus {
  // Go's updateStatusInternal also keeps the pod's startTime once it has one.
  if (previous?.startTime !== undefined && previous.startTime !== '') next = { ...next, startTime: previous.startTime };
  if (!previous?.conditions || !next.conditions) return next;
  const before = new Map(previous.conditions.map((c) => [c.type, c]));
  const conditions: PodCondition[] = next.conditions.map((c) => {
    const old = before.get(c.type);
    if (old && old.status === c.status && old.lastTransitionTime !== undefined) {
      return { ...c, lastTransitionTime: old.lastTransitionTime };
    }
    return c;
  });
  return { ...next, conditions };
}

/**
 * The patch the status manager sends to `pods/{name}/status`: the whole new
 * status, fields the last sent status had and the new one lacks set to null so they are removed,
 * and the pod's UID under metadata, which the API server checks as a precondition (Go puts the
 * UID in its patch for the same reason). Sent as a strategic merge patch: lists are replaced whole
 * but conditions, which merge by type, so a condition no longer reported is deleted by a directive.
 */
export function statusMergePatch(uid: string, previous: PodStatus | null | undefined, next: PodStatus): Record<string, unknown> {
  const status: Record<string, unknown> = { ...next };
  for (const key of Object.keys(previous ?? {})) {
    if (!(key in next) || (next as Record<string, unknown>)[key] === undefined) status[key] = null;
  }
  // The API server merges conditions by type: one the kubelet dropped (a resize condition) must be deleted by name.
  const kept = new Set((next.conditions ?? []).map((c) => c.type));
  const dropped = (previous?.conditions ?? []).filter((c) => !kept.has(c.type)).map((c) => ({ type: c.type, $patch: 'delete' }));
  if (dropped.length > 0 && next.conditions) status['conditions'] = [...next.conditions, ...dropped];
  return { metadata: { uid }, status };
}

/**
 * Whether the API server's status already says what `ours` says (Go's needsReconcile with
 * isPodStatusByKubeletEqual): only the fields we set count, and only the condition types we set,
 * since others (the scheduler's PodScheduled, a server-side qosClass, conditions of other
 * controllers) are not ours to overwrite, and comparing them would patch again at every resync.
 */
export function isStatusReflected(ours: PodStatus, api: PodStatus | null | undefined): boolean {
  if (!api) return false;
  // The 10 s resync asks this of every pod, and on a quiet node of the very same two statuses (they
  // are replaced, never changed in place): remembering the answer per pair saves comparing them again.
  const remembered = reflectedBefore.get(ours);
  if (remembered?.api === api) return remembered.reflected;
  const reflected = projectedIsSame(ours, api);
  reflectedBefore.set(ours, { api, reflected });
  return reflected;
}

/** isStatusReflected's last answer for a status of ours, and the API server's status it was about. */
const reflectedBefore = new WeakMap<PodStatus, { api: PodStatus; reflected: boolean }>();

function projectedIsSame(ours: PodStatus, api: PodStatus): boolean {
  const projected: Record<string, unknown> = {};
  for (const key of Object.keys(ours) as (keyof PodStatus)[]) {
    if (ours[key] === undefined) continue;
    projected[key] = api[key];
  }
  if (ours.conditions && api.conditions) {
    const types = new Set(ours.conditions.map((c) => c.type));
    projected['conditions'] = api.conditions.filter((c) => types.has(c.type));
  }
  return isSameStatus(ours, projected as PodStatus);
}
