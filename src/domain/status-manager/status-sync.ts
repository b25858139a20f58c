/**
 * The status manager's decisions (Go's pkg/kubelet/status/status_manager.go: SetPodStatus,
 * syncBatch, syncPod, needsUpdate, needsReconcile, canBeDeleted; and the mirror-pod steps of the
 * kubelet), as pure functions from the state to the next state and the effects to run. The
 * machine (machines/status-manager.machine.ts) holds the state and runs the effects.
 *
 * Statuses are keyed by the local pod's UID. A static pod's status goes to its mirror pod (Go's
 * TranslatePodUID): same namespace and name, the mirror's UID as the precondition; without a
 * mirror of the right hash it waits.
 */
import type { SerializedError } from '../errors.js';
import type { Pod, PodStatus } from '../pod/types.js';
import { podFullName } from '../pod-config/types.js';
import { buildMirrorPod, isMirrorPodOf, isStaticPod, planMirrorPods } from './mirror-pods.js';
import { mergePodStatus } from './merge-status.js';
import { canBeDeleted } from './pod-deletion.js';
import { isSameStatus, isStatusReflected, keepTransitionTimes, statusMergePatch } from './status-compare.js';

export interface StatusEntry {
  /** The newest status from the pod worker, and its version (1, 2, … per pod). */
  latest: PodStatus;
  version: number;
  /** The last status the API server accepted, and its version (0: none yet). */
  sent: PodStatus | null;
  sentVersion: number;
  /**
   * The pod's resourceVersion in the API server's answer to that patch: at that resourceVersion its
   * status is what the server made of ours, fields it does not know dropped (an older API server
   * drops hostIPs, say), so a resync finds no drift there to send again.
   */
  acceptedResourceVersion?: string;
  /** The patch in flight, if any: only one per pod; newer statuses wait and supersede. */
  sendingVersion: number | null;
  sendingStatus: PodStatus | null;
  /** The grace-0 delete: asked for, or done. */
  deletion: 'none' | 'inFlight' | 'done';
}

/** What the API server last showed for a pod (from a patch answer or an observed pod). */
export interface ApiStatusView {
  resourceVersion?: string;
  status: PodStatus | null;
}

export interface StatusSyncState {
  nodeName: string;
  /** The Node's UID, needed for the mirror pods' owner reference; null until registered. */
  nodeUid: string | null;
  /** Every pod the kubelet has, by UID, as its source gave it (deletionTimestamp included). */
  pods: Record<string, Pod>;
  statuses: Record<string, StatusEntry>;
  apiStatuses: Record<string, ApiStatusView>;
  /** Mirror pods in the API server, by full name; null until first observed. */
  mirrors: Record<string, Pod> | null;
  /** Full names with a mirror create or delete in flight. */
  mirrorBusy: Record<string, 'create' | 'delete'>;
}

export type StatusEffect =
  | { kind: 'patchPodStatus'; podUid: string; version: number; namespace: string; name: string; patch: Record<string, unknown> }
  | { kind: 'deletePod'; podUid: string; namespace: string; name: string; uid: string }
  | { kind: 'createMirrorPod'; fullName: string; pod: Pod }
  | { kind: 'deleteMirrorPod'; fullName: string; namespace: string; name: string; uid: string };

/**
 * What the API server answered a status patch with, as far as the status manager reads it: the pod's
 * UID, resourceVersion and status. Not the whole pod: the answer is an input the journal keeps, and
 * the spec and managed fields it would carry were most of each answer's record and never read.
 */
export interface PatchedPodStatus {
  metadata: { uid: string; resourceVersion?: string };
  status?: PodStatus;
}

/** What an effect actor answers (never a rejection: failures are data). */
export type StatusEffectResult =
  | { kind: 'patchPodStatus'; podUid: string; version: number; ok: true; pod: PatchedPodStatus }
  | { kind: 'patchPodStatus'; podUid: string; version: number; ok: false; error: SerializedError }
  | { kind: 'deletePod'; podUid: string; ok: boolean; error?: SerializedError }
  | { kind: 'createMirrorPod'; fullName: string; ok: true; pod: Pod }
  | { kind: 'createMirrorPod'; fullName: string; ok: false; error: SerializedError }
  | { kind: 'deleteMirrorPod'; fullName: string; ok: boolean; error?: SerializedError };

export interface Step {
  state: StatusSyncState;
  effects: StatusEffect[];
}

export function initialStatusSyncState(nodeName: string, nodeUid: string | null): StatusSyncState {
  return { nodeName, nodeUid, pods: {}, statuses: {}, apiStatuses: {}, mirrors: null, mirrorBusy: {} };
}

/**
 * Only a resourceVersion that is newer replaces what we know. resourceVersions are opaque to
 * clients; every API server we talk to uses etcd revisions (integers), so when both are integers
 * the larger wins, otherwise the later arrival does.
 */
function isNewer(candidate: string | undefined, known: string | undefined): boolean {
  // The same version is the common case (a pod re-listed unchanged): no parse for it.
  if (candidate === undefined || known === undefined || candidate === known) return true;
  if (/^\d+$/.test(candidate) && /^\d+$/.test(known)) return BigInt(candidate) >= BigInt(known);
  return true;
}

/** What the API server shows of a pod, once `pod` (as it showed it) is seen: the newer of the two. */
function observedView(known: ApiStatusView | undefined, pod: PatchedPodStatus): ApiStatusView {
  if (known && !isNewer(pod.metadata.resourceVersion, known.resourceVersion)) return known;
  const status = pod.status ?? null;
  if (known && known.resourceVersion === pod.metadata.resourceVersion && known.status === status) return known;
  return { resourceVersion: pod.metadata.resourceVersion, status };
}

function observeApiStatus(views: Record<string, ApiStatusView>, uid: string, pod: PatchedPodStatus): Record<string, ApiStatusView> {
  const view = observedView(views[uid], pod);
  return view === views[uid] ? views : { ...views, [uid]: view };
}

/** Where a pod's status is written: the pod itself, or a static pod's mirror. */
export function statusTarget(state: StatusSyncState, podUid: string): { namespace: string; name: string; uid: string; apiKey: string } | null {
  const pod = state.pods[podUid];
  if (!pod) return null;
  const namespace = pod.metadata.namespace ?? 'default';
  if (isStaticPod(pod)) {
    const mirror = state.mirrors?.[podFullName(pod)];
    if (!mirror || !isMirrorPodOf(mirror, pod) || mirror.metadata.deletionTimestamp !== undefined) return null;
    return { namespace, name: pod.metadata.name, uid: mirror.metadata.uid, apiKey: mirror.metadata.uid };
  }
  return { namespace, name: pod.metadata.name, uid: pod.metadata.uid, apiKey: pod.metadata.uid };
}

/** SetPodStatus: a new status from the pod worker, then a sync of that pod. */
export function setPodStatus(state: StatusSyncState, podUid: string, status: PodStatus): Step {
  const entry = state.statuses[podUid];
  const base = entry?.latest ?? state.apiStatuses[podUid]?.status ?? null;
  const latest = keepTransitionTimes(base, status);
  const next: StatusEntry = entry
    ? { ...entry, latest, version: entry.version + 1 }
    : { latest, version: 1, sent: null, sentVersion: 0, sendingVersion: null, sendingStatus: null, deletion: 'none' };
  return syncPodStatus({ ...state, statuses: { ...state.statuses, [podUid]: next } }, podUid, false);
}

/**
 * Go's syncPod for one pod: patch when the latest status is newer than the one sent and differs
 * from it (or, on a resync, differs from what the API server shows: needsReconcile); then, when
 * the API server has the final status of a pod being deleted, delete it with grace 0.
 */
export function syncPodStatus(state: StatusSyncState, podUid: string, reconcile: boolean): Step {
  const entry = state.statuses[podUid];
  if (!entry || entry.sendingVersion !== null || entry.deletion !== 'none') return { state, effects: [] };
  const target = statusTarget(state, podUid);
  if (!target) return { state, effects: [] };
  const apiView = state.apiStatuses[target.apiKey];
  // What is written: our status, with the conditions others own as the API server has them now.
  const merged = mergePodStatus(apiView?.status, entry.latest);
  const newer = entry.version > entry.sentVersion && !isSameStatus(merged, entry.sent);
  const drifted = reconcile && apiView !== undefined && !isAcceptedAnswer(entry, apiView) && !isStatusReflected(merged, apiView.status);
  if (newer || drifted) {
    const previous = entry.sent ?? apiView?.status ?? null;
    const effect: StatusEffect = {
      kind: 'patchPodStatus',
      podUid,
      version: entry.version,
      namespace: target.namespace,
      name: target.name,
      patch: statusMergePatch(target.uid, previous, merged),
    };
    const sending: StatusEntry = { ...entry, sendingVersion: entry.version, sendingStatus: merged };
    return { state: { ...state, statuses: { ...state.statuses, [podUid]: sending } }, effects: [effect] };
  }
  return deleteIfFinished(state, podUid);
}

/** Whether the API server's view is its answer to our last accepted patch (nothing changed since). */
function isAcceptedAnswer(entry: StatusEntry, apiView: ApiStatusView): boolean {
  return entry.acceptedResourceVersion !== undefined && apiView.resourceVersion === entry.acceptedResourceVersion;
}

function deleteIfFinished(state: StatusSyncState, podUid: string): Step {
  const entry = state.statuses[podUid];
  const pod = state.pods[podUid];
  if (!entry || !pod || entry.deletion !== 'none' || isStaticPod(pod)) return { state, effects: [] };
  if (!canBeDeleted(pod, entry.sent)) return { state, effects: [] };
  const effect: StatusEffect = {
    kind: 'deletePod',
    podUid,
    namespace: pod.metadata.namespace ?? 'default',
    name: pod.metadata.name,
    uid: pod.metadata.uid,
  };
  return { state: { ...state, statuses: { ...state.statuses, [podUid]: { ...entry, deletion: 'inFlight' } } }, effects: [effect] };
}

/** Runs `step` for every pod with a status (sorted, so the effects come in a stable order). */
function forEveryStatus(state: StatusSyncState, step: (s: StatusSyncState, uid: string) => Step): Step {
  return forStatuses(state, Object.keys(state.statuses), step);
}

/** Runs `step` for each of these pods with a status, sorted as forEveryStatus. */
function forStatuses(state: StatusSyncState, uids: readonly string[], step: (s: StatusSyncState, uid: string) => Step): Step {
  let current = state;
  const effects: StatusEffect[] = [];
  for (const uid of [...uids].sort()) {
    const result = step(current, uid);
    current = result.state;
    effects.push(...result.effects);
  }
  return { state: current, effects };
}

/** Mirror pods: create what is missing, delete what is stale or orphaned (once mirrors were observed). */
export function syncMirrorPods(state: StatusSyncState): Step {
  if (state.mirrors === null) return { state, effects: [] };
  const staticPods = Object.values(state.pods).filter(isStaticPod);
  const busy = new Set(Object.keys(state.mirrorBusy));
  const effects: StatusEffect[] = [];
  const mirrorBusy = { ...state.mirrorBusy };
  for (const action of planMirrorPods(staticPods, Object.values(state.mirrors), busy)) {
    if (action.kind === 'create') {
      const pod = state.pods[action.staticPodUid];
      if (!pod || state.nodeUid === null) continue; // Go needs the Node for the owner reference too
      effects.push({ kind: 'createMirrorPod', fullName: action.fullName, pod: buildMirrorPod(pod, { name: state.nodeName, uid: state.nodeUid }) });
      mirrorBusy[action.fullName] = 'create';
    } else {
      effects.push({ kind: 'deleteMirrorPod', fullName: action.fullName, namespace: action.namespace, name: action.name, uid: action.mirrorUid });
      mirrorBusy[action.fullName] = 'delete';
    }
  }
  return { state: { ...state, mirrorBusy }, effects };
}

function then(first: Step, next: (s: StatusSyncState) => Step): Step {
  const second = next(first.state);
  return { state: second.state, effects: [...first.effects, ...second.effects] };
}

/**
 * The pods the kubelet has now. Statuses of pods no longer there are dropped (Go's
 * RemoveOrphanedStatuses), unless a patch or delete is in flight for them; so are the API server's
 * views of them (Go drops their apiStatusVersions there too). Kept for every pod the node ever ran,
 * they would be copied whole by every update for each pod it carries, a cost growing without
 * bound (docs/FINDINGS.md, bench/status-history.ts).
 *
 * Only the statuses this can change are synced: those of pods added, changed (a deletion) or gone,
 * and those still to be sent (a patch that failed, or one that waited for its pod). For any other,
 * nothing syncPodStatus reads has changed since it last ran for it, so it would decide the same:
 * nothing. Syncing every status on every update made a burst of N pods cost N² syncs.
 */
export function setKnownPods(state: StatusSyncState, pods: readonly Pod[]): Step {
  const byUid: Record<string, Pod> = {};
  for (const pod of pods) byUid[pod.metadata.uid] = pod;
  const statuses = Object.fromEntries(
    Object.entries(state.statuses).filter(([uid, entry]) => byUid[uid] !== undefined || entry.sendingVersion !== null || entry.deletion === 'inFlight'),
  );
  const apiStatuses = apiViewsOfKnown(state.apiStatuses, pods, [...Object.keys(statuses), ...Object.values(state.mirrors ?? {}).map((m) => m.metadata.uid)]);
  const next = { ...state, pods: byUid, statuses, apiStatuses };
  const touched = Object.keys(statuses).filter((uid) =>
    state.pods[uid] !== byUid[uid] || state.apiStatuses[uid] !== apiStatuses[uid] || isUnsent(statuses[uid]!));
  return then(forStatuses(next, touched, (s, uid) => syncPodStatus(s, uid, false)), syncMirrorPods);
}

/** A status newer than what the API server accepted, with no patch or delete under way. */
function isUnsent(entry: StatusEntry): boolean {
  return entry.version > entry.sentVersion && entry.sendingVersion === null && entry.deletion === 'none';
}

/**
 * The API server's views of the pods given (each observed: their own pod object's status, when
 * newer) and of `alsoKeep` (statuses in flight, mirror pods), and of nothing else. A view that did
 * not change is the very object it was.
 */
function apiViewsOfKnown(views: Record<string, ApiStatusView>, pods: readonly Pod[], alsoKeep: readonly string[]): Record<string, ApiStatusView> {
  const next: Record<string, ApiStatusView> = {};
  for (const uid of alsoKeep) if (views[uid] !== undefined) next[uid] = views[uid];
  for (const pod of pods) {
    const uid = pod.metadata.uid;
    const known = views[uid];
    if (isStaticPod(pod) || pod.status === undefined) {
      if (known !== undefined) next[uid] = known;
      continue;
    }
    next[uid] = observedView(known, pod);
  }
  return next;
}

/** The mirror pods the API server has for this node (from the apiserver pod source). */
export function setObservedMirrors(state: StatusSyncState, mirrors: readonly Pod[]): Step {
  let apiStatuses = state.apiStatuses;
  for (const mirror of mirrors) apiStatuses = observeApiStatus(apiStatuses, mirror.metadata.uid, mirror);
  const next = { ...state, mirrors: Object.fromEntries(mirrors.map((m) => [podFullName(m), m])), apiStatuses };
  // A static pod waiting for its mirror can send its status now.
  return then(syncMirrorPods(next), (s) => forEveryStatus(s, (t, uid) => syncPodStatus(t, uid, false)));
}

export function setNodeUid(state: StatusSyncState, nodeUid: string): Step {
  return syncMirrorPods({ ...state, nodeUid });
}

/** The periodic full resync (Go's syncBatch(true) every syncPeriod). */
export function resync(state: StatusSyncState): Step {
  return then(forEveryStatus(state, (s, uid) => syncPodStatus(s, uid, true)), syncMirrorPods);
}

/** An effect's answer: record it, then sync what it unblocked. */
export function applyEffectResult(state: StatusSyncState, result: StatusEffectResult): Step {
  switch (result.kind) {
    case 'patchPodStatus': {
      const entry = state.statuses[result.podUid];
      if (!entry) return { state, effects: [] };
      let next: StatusEntry = { ...entry, sendingVersion: null, sendingStatus: null };
      let apiStatuses = state.apiStatuses;
      if (result.ok) {
        const accepted = result.pod.metadata.resourceVersion;
        next = { ...next, sent: entry.sendingStatus, sentVersion: result.version, ...(accepted === undefined ? {} : { acceptedResourceVersion: accepted }) };
        apiStatuses = observeApiStatus(apiStatuses, result.pod.metadata.uid, result.pod);
      }
      // A failed patch is retried by the next status or the next resync, as in Go.
      const updated = { ...state, statuses: { ...state.statuses, [result.podUid]: next }, apiStatuses };
      return result.ok ? syncPodStatus(updated, result.podUid, false) : { state: updated, effects: [] };
    }
    case 'deletePod': {
      const entry = state.statuses[result.podUid];
      if (!entry) return { state, effects: [] };
      const deletion = result.ok ? 'done' : 'none';
      return { state: { ...state, statuses: { ...state.statuses, [result.podUid]: { ...entry, deletion } } }, effects: [] };
    }
    case 'createMirrorPod':
    case 'deleteMirrorPod': {
      const { [result.fullName]: _done, ...mirrorBusy } = state.mirrorBusy;
      let mirrors = state.mirrors;
      if (mirrors !== null && result.ok) {
        const { [result.fullName]: _gone, ...rest } = mirrors;
        mirrors = result.kind === 'createMirrorPod' ? { ...rest, [result.fullName]: result.pod } : rest;
      }
      const next = { ...state, mirrorBusy, mirrors };
      // After a failure the next resync (or observation) tries again, not at once.
      if (!result.ok) return { state: next, effects: [] };
      return then(syncMirrorPods(next), (s) => forEveryStatus(s, (t, uid) => syncPodStatus(t, uid, false)));
    }
  }
}

/**
 * One pod config update (as the syncLoop receives it): REMOVE forgets the pods, every other
 * operation (ADD, UPDATE, DELETE, RECONCILE) gives their current form. Then as setKnownPods.
 */
export function applyPodConfigUpdate(state: StatusSyncState, op: 'ADD' | 'UPDATE' | 'DELETE' | 'REMOVE' | 'RECONCILE', pods: readonly Pod[]): Step {
  const next: Record<string, Pod> = { ...state.pods };
  for (const pod of pods) {
    if (op === 'REMOVE') delete next[pod.metadata.uid];
    else next[pod.metadata.uid] = pod;
  }
  return setKnownPods(state, Object.values(next));
}
