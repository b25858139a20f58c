/**
 * Recursive read-only mounts (RecursiveReadOnlyMounts, GA): a read-only volume mount may ask that
 * every mount beneath it be read-only too, which only a runtime that says so can do (CRI
 * RuntimeHandlerFeatures.recursive_read_only_mounts: containerd 2.0 and later). Neither runtime
 * kubelet-ts runs on here says so, so `IfPossible` is a plain read-only mount and `Enabled` fails
 * the container, in Go's words (kubelet_pods.go resolveRecursiveReadOnly). The container's status
 * lists each mount with the mode it got. Pure.
 */
import { KubeletError } from '../errors.js';
import type { Container, VolumeMount, VolumeMountStatus } from '../pod/types.js';

/**
 * Whether the runtime can: neither containerd before 2.0 nor the embedded runtime reports the
 * feature, and kubelet-ts does not read the runtime handlers' report of it yet (NOT-YET.md).
 */
export const RUNTIME_SUPPORTS_RECURSIVE_READ_ONLY = false;

/** Whether the mount is made recursively read-only; throws (a container config error) where it cannot be as asked. */
export function resolveRecursiveReadOnly(mount: VolumeMount, runtimeSupports: boolean): boolean {
  const mode = mount.recursiveReadOnly;
  if (mode === undefined || mode === 'Disabled') return false;
  const refuse = (why: string) => new KubeletError('KLT_ERR_CONTAINER_CONFIG', `failed to resolve recursive read-only mode: ${why}`);
  if (!mount.readOnly) throw refuse(`volume ${JSON.stringify(mount.name)} requested recursive read-only mode, but it is not read-only`);
  if (mount.mountPropagation !== undefined && mount.mountPropagation !== 'None') {
    throw refuse(`volume ${JSON.stringify(mount.name)} requested recursive read-only mode, but it is not compatible with propagation ${JSON.stringify(mount.mountPropagation)}`);
  }
  switch (mode) {
    case 'IfPossible':
      return runtimeSupports;
    case 'Enabled':
      if (!runtimeSupports) throw refuse(`volume ${JSON.stringify(mount.name)} requested recursive read-only mode, but it is not supported by the runtime`);
      return true;
    default:
      throw refuse(`unknown recursive read-only mode ${JSON.stringify(mode)}`);
  }
}

/** status.containerStatuses[].volumeMounts: each mount, and for a read-only one the mode it got (Disabled where it could not be had). */
export function volumeMountStatuses(container: Container, runtimeSupports: boolean): VolumeMountStatus[] {
  return (container.volumeMounts ?? []).map((m) => {
    const status: VolumeMountStatus = { name: m.name, mountPath: m.mountPath, ...(m.readOnly ? { readOnly: true } : {}) };
    if (!m.readOnly) return status;
    let recursive = false;
    try {
      recursive = resolveRecursiveReadOnly(m, runtimeSupports);
    } catch {
      // Go logs it and reports Disabled; the container's start fails with the reason.
    }
    return { ...status, recursiveReadOnly: recursive ? 'Enabled' : 'Disabled' };
  });
}
