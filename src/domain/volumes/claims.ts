/**
 * A pod's claim to the volume it mounts (Go: the desired state of world populator's
 * createVolumeSpec, getPVCExtractPV and getPVSpec; component-helpers' ephemeral.VolumeIsForPod;
 * storage helpers' CheckNodeAffinity). Pure decisions over the claim, the PV and the node's labels as
 * the API server gave them; the reads are the adapter's. Each refusal is Go's text, so the pod's
 * FailedMount event reads as the Go kubelet's.
 */
import { matchesNodeSelectorTerms } from '../pod/node-selector.js';
import type { NodeSelectorTerm, Pod } from '../pod/types.js';
import type { PersistentVolumeRef, VolumePluginName } from './pod-volumes.js';
import type { HostPathVolumeSource, Volume } from './sources.js';

/** The fields of a PersistentVolumeClaim the kubelet reads. */
export interface ClaimObject {
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    deletionTimestamp?: string;
    ownerReferences?: { uid?: string; controller?: boolean }[];
  };
  spec?: { volumeName?: string; volumeMode?: string };
  status?: { phase?: string };
}

/** A PV's `spec.csi`, as the API gives it (the CSI volume plugin's port takes it as is). */
export interface CsiPersistentVolumeSourceFields {
  driver: string;
  volumeHandle: string;
  readOnly?: boolean;
  fsType?: string;
  volumeAttributes?: Record<string, string>;
  nodeStageSecretRef?: { name?: string; namespace?: string };
  nodePublishSecretRef?: { name?: string; namespace?: string };
  controllerPublishSecretRef?: { name?: string; namespace?: string };
}

/** The fields of a PersistentVolume the kubelet reads. */
export interface PersistentVolumeObject {
  metadata?: { name?: string };
  spec?: {
    claimRef?: { uid?: string; name?: string; namespace?: string };
    mountOptions?: string[];
    accessModes?: string[];
    volumeMode?: string;
    hostPath?: HostPathVolumeSource;
    local?: { path?: string; fsType?: string };
    csi?: CsiPersistentVolumeSourceFields;
    nodeAffinity?: { required?: { nodeSelectorTerms?: NodeSelectorTerm[] } };
    [source: string]: unknown;
  };
}

/** The claim a pod volume stands for: its own `persistentVolumeClaim`, or a generic ephemeral volume's `<pod>-<volume>`. */
export interface PodVolumeClaim {
  claimName: string;
  readOnly: boolean;
  /** A generic ephemeral volume: the claim must be controlled by the pod. */
  ephemeral: boolean;
}

export function podVolumeClaim(pod: Pod, volume: Volume): PodVolumeClaim | undefined {
  if (volume.persistentVolumeClaim !== undefined) {
    return { claimName: volume.persistentVolumeClaim.claimName, readOnly: volume.persistentVolumeClaim.readOnly ?? false, ephemeral: false };
  }
  // ephemeral.VolumeClaimName: the controller names the claim after the pod and the volume.
  if (volume.ephemeral !== undefined) return { claimName: `${pod.metadata.name}-${volume.name}`, readOnly: false, ephemeral: true };
  return undefined;
}

export const isClaimVolume = (volume: Volume): boolean => volume.persistentVolumeClaim !== undefined || volume.ephemeral !== undefined;

/** The processing error Go adds to the pod for a claim it could not turn into a volume. */
export function claimProcessingError(namespace: string, claimName: string, reason: string): string {
  return `error processing PVC ${namespace}/${claimName}: ${reason}`;
}

/** getPVCExtractPV: why the claim cannot be used, or null. */
export function claimRefusal(claim: ClaimObject): string | null {
  // A pod must not start on a claim being deleted (the claim's protection keeps it for running pods only).
  if (claim.metadata?.deletionTimestamp) return 'PVC is being deleted';
  if (claim.status?.phase !== 'Bound') return 'PVC is not bound';
  if (!claim.spec?.volumeName) return 'PVC has empty pvc.Spec.VolumeName';
  return null;
}

/** ephemeral.VolumeIsForPod: the claim of a generic ephemeral volume must be controlled by the pod. */
export function ephemeralClaimRefusal(pod: Pod, claim: ClaimObject): string | null {
  const namespace = pod.metadata.namespace ?? 'default';
  const controller = (claim.metadata?.ownerReferences ?? []).find((r) => r.controller === true);
  if ((claim.metadata?.namespace ?? namespace) === namespace && controller !== undefined && controller.uid === pod.metadata.uid) return null;
  return `PVC ${claim.metadata?.namespace ?? namespace}/${claim.metadata?.name ?? ''} was not created for pod ${namespace}/${pod.metadata.name} (pod is not owner)`;
}

/** getPVSpec: why the PV cannot be the claim's, or null. */
export function persistentVolumeRefusal(pvName: string, pv: PersistentVolumeObject, claimUid: string): string | null {
  const ref = pv.spec?.claimRef;
  if (ref === undefined || ref === null) return `found PV object ${pvName} but it has a nil pv.Spec.ClaimRef indicating it is not yet bound to the claim`;
  if ((ref.uid ?? '') !== claimUid) return `found PV object ${pvName} but its pv.Spec.ClaimRef.UID ${ref.uid ?? ''} does not point to claim.UID ${claimUid}`;
  return null;
}

/** The PV's volumeMode (GetVolumeMode): Filesystem unless it says otherwise. */
export function persistentVolumeMode(claim: ClaimObject, pv: PersistentVolumeObject): string {
  return pv.spec?.volumeMode ?? claim.spec?.volumeMode ?? 'Filesystem';
}

/** How the pod's containers use a volume: in volumeMounts, in volumeDevices (both is possible, and refused for either mode). */
export interface VolumeUse {
  mounted: boolean;
  mapped: boolean;
}

/** createVolumeSpec's volume mode checks: only a Filesystem volume is a volumeMount, only a Block one a volumeDevice. */
export function volumeModeRefusal(volumeName: string, claim: ClaimObject, pv: PersistentVolumeObject, use: VolumeUse = { mounted: true, mapped: false }): string | null {
  const mode = persistentVolumeMode(claim, pv);
  if (use.mounted && mode !== 'Filesystem') return `volume ${volumeName} has volumeMode ${mode}, but is specified in volumeMounts`;
  if (use.mapped && mode !== 'Block') return `volume ${volumeName} has volumeMode ${mode}, but is specified in volumeDevices`;
  return null;
}

/** CheckNodeAffinity: the PV's required node affinity against the node's labels (the node's name is not looked at, as in Go). */
export function nodeAffinityRefusal(pv: PersistentVolumeObject, nodeLabels: Readonly<Record<string, string>>): string | null {
  const required = pv.spec?.nodeAffinity?.required;
  if (!required) return null;
  return matchesNodeSelectorTerms(required.nodeSelectorTerms ?? [], { name: '', labels: nodeLabels }) ? null : 'no matching NodeSelectorTerms';
}

/** A claim's PV as the plugins mount it. */
export type ResolvedPersistentVolume =
  | { plugin: 'kubernetes.io/host-path'; source: HostPathVolumeSource }
  | { plugin: 'kubernetes.io/local-volume'; source: { path: string }; block?: true }
  | { plugin: 'kubernetes.io/csi'; source: CsiPersistentVolumeSourceFields };

export interface PersistentVolumeMount {
  ref: PersistentVolumeRef;
  volume: ResolvedPersistentVolume;
  /** The claim's readOnly, or the PV source's (NewSpecFromPersistentVolume, the plugin's ReadOnly). */
  readOnly: boolean;
  mountOptions: string[];
  accessModes: string[];
}

/**
 * The PV source's plugin (FindPluginBySpec, FindMapperPluginBySpec for a Block PV), or the
 * populator's error when none of ours matches. Only a local PV is mapped as a raw block volume here.
 */
export function persistentVolumeMount(claim: PodVolumeClaim, pvName: string, pv: PersistentVolumeObject): PersistentVolumeMount | string {
  const spec = pv.spec ?? {};
  const ref = (plugin: VolumePluginName): PersistentVolumeRef => ({ claimName: claim.claimName, pvName, plugin });
  const common = { mountOptions: spec.mountOptions ?? [], accessModes: spec.accessModes ?? [] };
  if (spec.volumeMode === 'Block') {
    if (!spec.local) return `failed to get Plugin from volumeSpec for volume "${pvName}" err=no volume plugin matched: kubelet-ts maps raw block volumes of local PVs only`;
    return {
      ref: { ...ref('kubernetes.io/local-volume'), block: true },
      volume: { plugin: 'kubernetes.io/local-volume', source: { path: spec.local.path ?? '' }, block: true },
      readOnly: claim.readOnly,
      ...common,
    };
  }
  if (spec.hostPath) {
    return { ref: ref('kubernetes.io/host-path'), volume: { plugin: 'kubernetes.io/host-path', source: spec.hostPath }, readOnly: claim.readOnly, ...common };
  }
  if (spec.local) {
    return { ref: ref('kubernetes.io/local-volume'), volume: { plugin: 'kubernetes.io/local-volume', source: { path: spec.local.path ?? '' } }, readOnly: claim.readOnly, ...common };
  }
  if (spec.csi) {
    return { ref: ref('kubernetes.io/csi'), volume: { plugin: 'kubernetes.io/csi', source: spec.csi }, readOnly: claim.readOnly || (spec.csi.readOnly ?? false), ...common };
  }
  return `failed to get Plugin from volumeSpec for volume "${pvName}" err=no volume plugin matched`;
}
