/**
 * A container's raw block volumes (Go: kubelet_pods.go makeBlockVolumes): each volumeDevice is the
 * symlink its claim's PV was mapped to, given to the runtime as a device at `devicePath`, with
 * read-write-mknod rights, or read only when the claim is readOnly. A devicePath that is not
 * absolute, or a volume not mapped, fails the container with CreateContainerConfigError, as in Go.
 */
import { KubeletError } from '../../domain/errors.js';
import type { Container, Pod } from '../../domain/pod/types.js';
import type { CriDevice } from '../../domain/runtime/cri-config.js';
import type { VolumePlugins } from '../../ports/volumes.js';

export function makeContainerDevices(volumes: Pick<VolumePlugins, 'mountedVolume'> | undefined, pod: Pod, container: Container): CriDevice[] {
  return (container.volumeDevices ?? []).map((device) => {
    if (!device.devicePath.startsWith('/')) throw new KubeletError('KLT_ERR_CONTAINER_CONFIG', `error DevicePath \`${device.devicePath}\` must be an absolute path`);
    const mapped = volumes?.mountedVolume(pod.metadata.uid, device.name);
    if (!mapped) throw new KubeletError('KLT_ERR_CONTAINER_CONFIG', `cannot find volume "${device.name}" to pass into container "${container.name}"`);
    return { container_path: device.devicePath, host_path: mapped.hostPath, permissions: mapped.readOnly ? 'r' : 'mrw' };
  });
}
