/**
 * The pod config merge: Go's podStorage.Merge (pkg/kubelet/config/config.go) for SET updates in
 * mode PodConfigNotificationIncremental, as a pure function over plain data.
 *
 * Every source reports snapshots (all the pods it has now). Against what the source gave before:
 * - a new UID is an ADD, stamped with config.source and config.seen (the snapshot's observation
 *   time, RFC 3339 in UTC with milliseconds; Go uses time.Now() in local time with nanoseconds);
 * - a known UID whose spec, labels, deletionTimestamp, deletionGracePeriodSeconds or non-local
 *   annotations changed is an UPDATE, or a DELETE when the change sets deletionTimestamp (a
 *   graceful deletion request); the stored pod keeps its own local annotations (config.seen…);
 * - a known UID where only the status changed is a RECONCILE;
 * - a UID missing from the snapshot is a REMOVE.
 * Operations come out in Go's order: REMOVE, ADD, UPDATE, DELETE, RECONCILE; empty ones are not
 * emitted. Go also sends an empty ADD on a source's first snapshot to signal it is ready; we report
 * readiness with `sourcesReady` instead (see areSourcesReady).
 * Within one snapshot a second pod with the same `<name>_<namespace>` (or UID) is dropped, as Go's
 * filterInvalidPods does; the sources report such duplicates themselves (duplicates.ts).
 */
import type { Pod } from '../pod/types.js';
import { sameJson } from '../same-json.js';
import {
  CONFIG_SEEN_ANNOTATION,
  CONFIG_SOURCE_ANNOTATION,
  LOCAL_ANNOTATIONS,
  podFullName,
  type PodOperation,
  type PodSourceName,
  type PodUpdate,
} from './types.js';

export interface PodConfigState {
  /** Per source, the pods it gave last, by UID, as stored (with the kubelet's annotations). */
  pods: Partial<Record<PodSourceName, Record<string, Pod>>>;
  /** Sources that have delivered at least one snapshot (Go's sourcesSeen). */
  seenSources: PodSourceName[];
}

export interface MergeResult {
  state: PodConfigState;
  updates: PodUpdate[];
}

export function initialPodConfigState(): PodConfigState {
  return { pods: {}, seenSources: [] };
}

/** Go's SeenAllSources: every configured source has delivered a snapshot (no sources: ready). */
export function areSourcesReady(state: PodConfigState, configured: readonly PodSourceName[]): boolean {
  return configured.every((source) => state.seenSources.includes(source));
}

/** Every pod of every source, in source then arrival order (Go's MergedState). */
export function mergedPods(state: PodConfigState): Pod[] {
  return Object.values(state.pods).flatMap((bySource) => Object.values(bySource ?? {}));
}

export function mergeSnapshot(state: PodConfigState, source: PodSourceName, snapshot: Pod[], observedAtMs: number): MergeResult {
  const previous = state.pods[source] ?? {};
  const next: Record<string, Pod> = {};
  const ops: Record<PodOperation, Pod[]> = { REMOVE: [], ADD: [], UPDATE: [], DELETE: [], RECONCILE: [] };
  for (const incoming of withoutDuplicates(snapshot)) {
    const ref = withAnnotation(incoming, CONFIG_SOURCE_ANNOTATION, source);
    const existing = previous[ref.metadata.uid];
    if (existing === undefined) {
      const added = withAnnotation(ref, CONFIG_SEEN_ANNOTATION, new Date(observedAtMs).toISOString());
      next[ref.metadata.uid] = added;
      ops.ADD.push(added);
      continue;
    }
    const { op, stored } = compareWithExisting(existing, ref);
    next[ref.metadata.uid] = stored;
    if (op) ops[op].push(stored);
  }
  for (const [uid, existing] of Object.entries(previous)) {
    if (!(uid in next)) ops.REMOVE.push(existing);
  }
  const seenSources = state.seenSources.includes(source) ? state.seenSources : [...state.seenSources, source];
  const updates = (Object.keys(ops) as PodOperation[])
    .filter((op) => ops[op].length > 0)
    .map((op) => ({ op, source, pods: ops[op] }));
  return { state: { pods: { ...state.pods, [source]: next }, seenSources }, updates };
}

/** Go's checkAndUpdatePod: what changed, and the pod to store from now on. */
function compareWithExisting(existing: Pod, ref: Pod): { op: PodOperation | null; stored: Pod } {
  if (!differSemantically(existing, ref)) {
    const sameStatus = sameJson(existing.status ?? null, ref.status ?? null);
    const kept = withIncomingObjects(existing, ref, sameStatus);
    if (sameStatus) return { op: null, stored: kept };
    // The kubelet is the source of truth of a pod's status; a source's change to it is only reconciled.
    // The status keeps the resourceVersion it came with: the status manager orders what the API
    // server showed by it, and would take the new status for an older one under the old version.
    const metadata = { ...kept.metadata };
    assignOrDelete(metadata, 'resourceVersion', ref.metadata.resourceVersion);
    return { op: 'RECONCILE', stored: { ...kept, metadata, status: ref.status } };
  }
  const metadata = { ...existing.metadata };
  assignOrDelete(metadata, 'resourceVersion', ref.metadata.resourceVersion);
  assignOrDelete(metadata, 'labels', ref.metadata.labels);
  assignOrDelete(metadata, 'deletionTimestamp', ref.metadata.deletionTimestamp);
  assignOrDelete(metadata, 'deletionGracePeriodSeconds', ref.metadata.deletionGracePeriodSeconds);
  // The status the kubelet writes says which generation of the spec it acts on.
  assignOrDelete(metadata, 'generation', ref.metadata.generation);
  metadata.annotations = keepLocalAnnotations(existing.metadata.annotations, ref.metadata.annotations);
  const stored: Pod = { ...existing, metadata, spec: ref.spec };
  assignOrDelete(stored, 'status', ref.status);
  return { op: ref.metadata.deletionTimestamp ? 'DELETE' : 'UPDATE', stored };
}

/**
 * `existing`, holding the incoming pod's spec, labels and status objects where they equal its own
 * (the caller has compared them; the status only when `sameStatus`): the next snapshot re-sends those very objects when the pod has not
 * changed, and sameJson then knows them equal by identity. The stored pod's content is unchanged.
 */
function withIncomingObjects(existing: Pod, ref: Pod, sameStatus: boolean): Pod {
  const labels = existing.metadata.labels !== undefined && ref.metadata.labels !== undefined ? ref.metadata.labels : existing.metadata.labels;
  const status = sameStatus && existing.status !== undefined && ref.status !== undefined ? ref.status : existing.status;
  if (existing.spec === ref.spec && existing.metadata.labels === labels && existing.status === status) return existing;
  const stored: Pod = { ...existing, metadata: { ...existing.metadata }, spec: ref.spec };
  assignOrDelete(stored.metadata, 'labels', labels);
  assignOrDelete(stored, 'status', status);
  return stored;
}

/** Go's podsDifferSemantically. */
function differSemantically(existing: Pod, ref: Pod): boolean {
  return !(
    sameJson(existing.spec, ref.spec) &&
    sameJson(existing.metadata.labels ?? {}, ref.metadata.labels ?? {}) &&
    existing.metadata.deletionTimestamp === ref.metadata.deletionTimestamp &&
    existing.metadata.deletionGracePeriodSeconds === ref.metadata.deletionGracePeriodSeconds &&
    sameJson(nonLocal(existing.metadata.annotations), nonLocal(ref.metadata.annotations))
  );
}

function nonLocal(annotations: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(annotations ?? {}).filter(([key]) => !LOCAL_ANNOTATIONS.includes(key)));
}

/** Go's updateAnnotations: the source's annotations plus the kubelet's own, kept from the stored pod. */
function keepLocalAnnotations(existing: Record<string, string> | undefined, incoming: Record<string, string> | undefined): Record<string, string> {
  const merged = { ...incoming };
  for (const key of LOCAL_ANNOTATIONS) {
    const value = existing?.[key];
    if (value !== undefined) merged[key] = value;
  }
  return merged;
}

function withoutDuplicates(pods: Pod[]): Pod[] {
  const names = new Set<string>();
  const uids = new Set<string>();
  return pods.filter((pod) => {
    const name = podFullName(pod);
    if (names.has(name) || uids.has(pod.metadata.uid)) return false;
    names.add(name);
    uids.add(pod.metadata.uid);
    return true;
  });
}

function withAnnotation(pod: Pod, key: string, value: string): Pod {
  return { ...pod, metadata: { ...pod.metadata, annotations: { ...pod.metadata.annotations, [key]: value } } };
}

function assignOrDelete<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value === undefined) delete target[key];
  else target[key] = value;
}
