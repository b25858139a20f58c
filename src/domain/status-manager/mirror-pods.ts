/**
 * Mirror pods (Go's pkg/kubelet/pod/mirror_client.go and the mirror-pod steps of Kubelet.SyncPod
 * and HandlePodCleanups): for every static pod the kubelet runs, a pod object of the same name and
 * namespace in the API server, annotated `kubernetes.io/config.mirror` = the static pod's hash and
 * owned by the Node, so the cluster can see it. Pure: what to create and delete, from the static
 * pods known and the mirror pods observed.
 */
import { isStaticPod as hasStaticSource } from '../pod/phase.js';
import type { Pod } from '../pod/types.js';
import {
  CONFIG_HASH_ANNOTATION,
  CONFIG_MIRROR_ANNOTATION,
  podFullName,
} from '../pod-config/types.js';

/**
 * Go's kubetypes.IsStaticPod (pod/phase.ts), for pods the API server lists as well: a mirror pod
 * carries its static pod's source annotation but is not itself one.
 */
export function isStaticPod(pod: Pod): boolean {
  return hasStaticSource(pod) && !isMirrorPod(pod);
}

/** Go's kubetypes.IsMirrorPod. */
export function isMirrorPod(pod: Pod): boolean {
  return pod.metadata.annotations?.[CONFIG_MIRROR_ANNOTATION] !== undefined;
}

/** Go's getHashFromMirrorPod / getPodHash: the static pod's config.hash (its UID when absent). */
export function staticPodHash(pod: Pod): string {
  return pod.metadata.annotations?.[CONFIG_HASH_ANNOTATION] ?? pod.metadata.uid;
}

/** Go's IsMirrorPodOf: same full name and the mirror carries the static pod's hash. */
export function isMirrorPodOf(mirror: Pod, staticPod: Pod): boolean {
  return podFullName(mirror) === podFullName(staticPod) && mirror.metadata.annotations?.[CONFIG_MIRROR_ANNOTATION] === staticPodHash(staticPod);
}

export interface NodeRef {
  name: string;
  uid: string;
}

/**
 * Go's CreateMirrorPod: a copy of the static pod without its UID, resourceVersion and status, its
 * annotations plus config.mirror = hash, and an owner reference to the Node (controller: true).
 */
export function buildMirrorPod(staticPod: Pod, node: NodeRef): Pod {
  const copy = structuredClone(staticPod);
  const { uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, ...metadata } = copy.metadata;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...metadata,
      uid: '',
      annotations: { ...(metadata.annotations ?? {}), [CONFIG_MIRROR_ANNOTATION]: staticPodHash(staticPod) },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.name, uid: node.uid, controller: true }],
    },
    spec: copy.spec,
  };
}

export type MirrorAction =
  | { kind: 'create'; fullName: string; staticPodUid: string }
  | { kind: 'delete'; fullName: string; namespace: string; name: string; mirrorUid: string };

/**
 * What to do so that every static pod has its mirror and no mirror is left without its static pod:
 * - a static pod without a mirror: create it;
 * - a mirror with another hash, or with a deletionTimestamp (someone deleted it gracefully):
 *   delete it with grace 0, as Go's SyncPod does; it is created again by the next plan;
 * - a mirror whose static pod is gone (or being deleted locally): delete it (deleteOrphanedMirrorPods).
 * `busy` names the full names with a create or delete already in flight: nothing more is planned
 * for them until it ends.
 */
export function planMirrorPods(staticPods: readonly Pod[], mirrors: readonly Pod[], busy: ReadonlySet<string>): MirrorAction[] {
  const actions: MirrorAction[] = [];
  const mirrorByName = new Map(mirrors.map((m) => [podFullName(m), m]));
  const wanted = new Set<string>();
  for (const pod of staticPods) {
    const fullName = podFullName(pod);
    if (pod.metadata.deletionTimestamp !== undefined) continue;
    wanted.add(fullName);
    if (busy.has(fullName)) continue;
    const mirror = mirrorByName.get(fullName);
    if (!mirror) {
      actions.push({ kind: 'create', fullName, staticPodUid: pod.metadata.uid });
    } else if (mirror.metadata.deletionTimestamp !== undefined || !isMirrorPodOf(mirror, pod)) {
      // Deleted at once (grace 0); the next plan, without it, creates it again.
      actions.push(deleteAction(fullName, mirror));
    }
  }
  for (const [fullName, mirror] of mirrorByName) {
    if (wanted.has(fullName) || busy.has(fullName)) continue;
    actions.push(deleteAction(fullName, mirror));
  }
  return actions;
}

function deleteAction(fullName: string, mirror: Pod): MirrorAction {
  return { kind: 'delete', fullName, namespace: mirror.metadata.namespace ?? 'default', name: mirror.metadata.name, mirrorUid: mirror.metadata.uid };
}
