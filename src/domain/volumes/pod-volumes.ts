/**
 * Which of a pod's volumes the volume manager mounts, through which plugin, and where they live on
 * the node (Go: the desired state of world populator's processPodVolumes, the plugin names of
 * pkg/volume/*, and the pod directory layout of kubelet_getters.go).
 */
import type { Container, Pod } from '../pod/types.js';
import { podVolumeDirectory } from '../pod/pod-paths.js';
import type { Volume } from './sources.js';

export type VolumePluginName =
  | 'kubernetes.io/empty-dir'
  | 'kubernetes.io/host-path'
  | 'kubernetes.io/configmap'
  | 'kubernetes.io/secret'
  | 'kubernetes.io/downward-api'
  | 'kubernetes.io/projected'
  | 'kubernetes.io/local-volume'
  | 'kubernetes.io/csi';

/** A volume that is a claim's PV: what stats and teardown need to know of it once set up. */
export interface PersistentVolumeRef {
  /** The pod's claim (a generic ephemeral volume's is `<pod>-<volume>`), in the pod's namespace. */
  claimName: string;
  pvName: string;
  /** The PV's own plugin (host-path, local-volume or csi): its directory is `<plugin>/<pvName>`. */
  plugin: VolumePluginName;
  /** A raw block volume: mapped (a symlink under `volumeDevices/`), not mounted. */
  block?: true;
}

/**
 * The plugin a volume actor is started with: a claim's (persistentVolumeClaim, ephemeral) is its
 * PV's, known only once the set-up has read the claim and the PV, so it starts as null.
 */
export type PodVolumePlugin = VolumePluginName | null;

/** The plugin that mounts a volume, or undefined for a source kubelet-ts has no plugin for. */
export function volumePluginName(volume: Volume): VolumePluginName | undefined {
  if (volume.emptyDir !== undefined) return 'kubernetes.io/empty-dir';
  if (volume.hostPath !== undefined) return 'kubernetes.io/host-path';
  if (volume.configMap !== undefined) return 'kubernetes.io/configmap';
  if (volume.secret !== undefined) return 'kubernetes.io/secret';
  if (volume.downwardAPI !== undefined) return 'kubernetes.io/downward-api';
  if (volume.projected !== undefined) return 'kubernetes.io/projected';
  if (volume.csi !== undefined) return 'kubernetes.io/csi';
  return undefined;
}

/** The source's key in the manifest, for an error about a volume kubelet-ts cannot mount. */
export function volumeSourceName(volume: Volume): string {
  return Object.keys(volume).find((k) => k !== 'name') ?? '(none)';
}

/**
 * A volume on the node's disk that lives as long as its pod (Go's IsLocalEphemeralVolume): a
 * disk-backed emptyDir or a ConfigMap. Its used bytes count in the pod's ephemeral storage.
 */
export function isLocalEphemeralVolume(volume: Volume): boolean {
  return (volume.emptyDir !== undefined && (volume.emptyDir.medium ?? '') === '') || volume.configMap !== undefined;
}

/**
 * Volumes whose content is rewritten on every pod sync (Go's RequiresRemount): their content comes
 * from API objects or the pod itself, which change while the pod runs.
 */
export function requiresRemount(plugin: VolumePluginName): boolean {
  return plugin === 'kubernetes.io/configmap' || plugin === 'kubernetes.io/secret' ||
    plugin === 'kubernetes.io/downward-api' || plugin === 'kubernetes.io/projected';
}

/** The names of the volumes the pod's containers use in volumeMounts, and in volumeDevices (GetPodVolumeNames). */
export function podVolumeUses(pod: Pod): { mounts: Set<string>; devices: Set<string> } {
  const containers = allContainers(pod);
  return {
    mounts: new Set(containers.flatMap((c) => (c.volumeMounts ?? []).map((m) => m.name))),
    devices: new Set(containers.flatMap((c) => (c.volumeDevices ?? []).map((d) => d.name))),
  };
}

function allContainers(pod: Pod): Container[] {
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
}

/**
 * The volumes a pod's containers mount or map (volumeMounts, volumeDevices), in spec order: Go's
 * populator mounts only those a container refers to (a volume no container uses is left alone).
 */
export function mountedVolumes(pod: Pod): Volume[] {
  const used = new Set(allContainers(pod).flatMap((c) => [...(c.volumeMounts ?? []), ...(c.volumeDevices ?? [])].map((m) => m.name)));
  return (pod.spec.volumes ?? []).filter((v) => used.has(v.name));
}

/**
 * Where a volume's content is on the node: a hostPath volume is its path; a CSI volume the driver's
 * publish target, `mount` in its directory (Go's csiMountMgr GetPath); every other one its pod
 * volume directory.
 */
export function volumeHostPath(rootDir: string, podUid: string, volume: Volume): string | undefined {
  if (volume.hostPath !== undefined) return volume.hostPath.path;
  const plugin = volumePluginName(volume);
  if (plugin === undefined) return undefined;
  const dir = podVolumeDirectory(rootDir, podUid, plugin, volume.name);
  return plugin === 'kubernetes.io/csi' ? `${dir}/mount` : dir;
}

/**
 * Go's exponential back-off for a failed volume operation (nestedpendingoperations'
 * exponentialbackoff): 500 ms, doubling, at most 2 min 2 s.
 */
export const volumeBackoff = { initialMs: 500, maxMs: 122_000 } as const;

export function volumeBackoffMs(failures: number, policy: { initialMs: number; maxMs: number } = volumeBackoff): number {
  if (failures <= 0) return 0;
  return Math.min(policy.initialMs * 2 ** Math.min(failures - 1, 30), policy.maxMs);
}

/** WaitForAttachAndMount's limit (podAttachAndMountTimeout). */
export const podAttachAndMountTimeoutMs = 2 * 60_000;

/** Go's error when the wait runs out: every volume not yet mounted, by name, sorted. */
export function attachAndMountTimeoutMessage(unmounted: readonly string[]): string {
  const list = `[${[...unmounted].sort().join(' ')}]`;
  return `unmounted volumes=${list}, unattached volumes=${list}, failed to process volumes=[]: timed out waiting for the condition`;
}

/** A volume the populator could not turn into a mountable one (a claim not bound, say), and why. */
export interface VolumeProcessingError { volumeName: string; message: string }

/**
 * WaitForAttachAndMount's error when the populator reported errors for the pod: the wait ends at
 * once with them (verifyVolumesMountedFunc pops them), joined by "; ", the volumes that failed named
 * in `failed to process volumes`. v1.26's `unattached volumes` is every expected volume (it looks
 * the pod's volume names up as unique volume names, which never match).
 */
export function volumeProcessingFailedMessage(unmounted: readonly string[], expected: readonly string[], failed: readonly VolumeProcessingError[]): string {
  const list = (names: readonly string[]) => `[${[...names].sort().join(' ')}]`;
  const errors = [...new Set(failed.map((f) => f.message))].sort().join('; ');
  return `unmounted volumes=${list(unmounted)}, unattached volumes=${list(expected)}, failed to process volumes=${list(failed.map((f) => f.volumeName))}: ${errors}`;
}
