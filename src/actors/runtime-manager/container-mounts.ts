/**
 * A container's mounts (Go: kubelet_pods.go makeMounts, with the termination-message mount of
 * kuberuntime_container.go): each volumeMount from its volume's node path (or a subPath inside it),
 * the pod's managed /etc/hosts when Go would mount it, and the termination-message file.
 * On a host with SELinux on, the runtime is asked to relabel what the kubelet manages (Go: the
 * volume plugin's Managed and SELinuxRelabel attributes: emptyDir and the API-content volumes,
 * never a hostPath), /etc/hosts and the termination-message file; without SELinux, nothing.
 * A volume the pod does not declare, a subPath that is refused, or a recursive read-only mode the
 * runtime cannot give (recursive-read-only.ts) fails the container with
 * CreateContainerConfigError, as in Go; a termination-message file that cannot be made is logged
 * and left out, as Go does.
 */
import { KubeletError } from '../../domain/errors.js';
import type { Container, Pod } from '../../domain/pod/types.js';
import type { CriMount } from '../../domain/runtime/cri-config.js';
import { etcHostsMount, shouldMountHostsFileFor } from '../../domain/runtime/etc-hosts.js';
import type { EnvVarValue } from '../../domain/runtime/env.js';
import { criMountPropagation } from '../../domain/runtime/mount-propagation.js';
import { RUNTIME_SUPPORTS_RECURSIVE_READ_ONLY, resolveRecursiveReadOnly } from '../../domain/runtime/recursive-read-only.js';
import { containerSubPath } from '../../domain/runtime/subpath.js';
import { terminationMessageMount, terminationMessagePath } from '../../domain/runtime/termination-message.js';
import { isClaimVolume } from '../../domain/volumes/claims.js';
import { requiresRemount, volumeHostPath, volumePluginName } from '../../domain/volumes/pod-volumes.js';
import type { Logger } from '../../log.js';
import type { PodFiles } from '../../ports/pod-files.js';
import type { VolumePlugins } from '../../ports/volumes.js';
import { podRef } from './step-runner.js';

export interface ContainerMountDeps {
  rootDir: string;
  files: PodFiles;
  clusterDomain: string;
  /** The host has SELinux on (RuntimeHost.selinuxEnabled). */
  selinuxEnabled: boolean;
  log: Logger;
  /** The volume plugins' record of what they set up: a claim's path (its PV's) is known only there. */
  volumes?: Pick<VolumePlugins, 'mountedVolume'>;
}

function isApiContent(volume: Parameters<typeof volumePluginName>[0]): boolean {
  const plugin = volumePluginName(volume);
  return plugin !== undefined && requiresRemount(plugin);
}

/** The plugin's Managed and SELinuxRelabel attributes: the kubelet made the content, so it may relabel it. */
function isRelabelled(volume: Parameters<typeof volumePluginName>[0]): boolean {
  return volumePluginName(volume) === 'kubernetes.io/empty-dir' || isApiContent(volume);
}

type PodVolume = NonNullable<Pod['spec']['volumes']>[number];

/** Where a pod's volume is on the node. A claim's volume is where its PV was set up, and read-only when the claim or the PV says so (Go's mustMountRO). */
export function podVolumePath(deps: Pick<ContainerMountDeps, 'rootDir' | 'volumes'>, pod: Pod, volume: PodVolume) {
  const claimMount = isClaimVolume(volume) ? deps.volumes?.mountedVolume(pod.metadata.uid, volume.name) : undefined;
  return { claimMount, volumePath: claimMount?.hostPath ?? volumeHostPath(deps.rootDir, pod.metadata.uid, volume) };
}

export async function makeContainerMounts(deps: ContainerMountDeps, pod: Pod, container: Container, podIPs: readonly string[], env: () => EnvVarValue[]): Promise<CriMount[]> {
  const mounts: CriMount[] = [];
  for (const mount of container.volumeMounts ?? []) {
    const volume = (pod.spec.volumes ?? []).find((v) => v.name === mount.name);
    const { claimMount, volumePath } = volume ? podVolumePath(deps, pod, volume) : { claimMount: undefined, volumePath: undefined };
    if (!volume || volumePath === undefined) {
      throw new KubeletError('KLT_ERR_CONTAINER_CONFIG', `cannot find volume "${mount.name}" to mount into container "${container.name}"`);
    }
    const subPath = mount.subPath || mount.subPathExpr ? containerSubPath(mount, env()) : '';
    const hostPath = subPath === ''
      ? volumePath
      : await deps.files.resolveSubPath({ volumePath, subPath, volumeMountName: mount.name, containerName: container.name });
    const propagation = criMountPropagation(mount.mountPropagation);
    resolveRecursiveReadOnly(mount, RUNTIME_SUPPORTS_RECURSIVE_READ_ONLY);
    mounts.push({
      container_path: mount.mountPath,
      host_path: hostPath,
      // API content is always mounted read-only (Go: the plugin's ReadOnly attribute, mustMountRO).
      readonly: (mount.readOnly ?? false) || isApiContent(volume) || (claimMount?.readOnly ?? false),
      selinux_relabel: deps.selinuxEnabled && isRelabelled(volume),
      propagation,
    });
  }
  if (shouldMountHostsFileFor(pod, container, podIPs)) {
    const hostsFile = await deps.files.ensureHostsFile(pod, podIPs, deps.clusterDomain);
    mounts.push(etcHostsMount(hostsFile, deps.selinuxEnabled));
  }
  const messagePath = terminationMessagePath(container);
  if (messagePath !== '') {
    try {
      const file = await deps.files.createTerminationMessageFile(pod.metadata.uid, container.name);
      mounts.push(terminationMessageMount(file, messagePath, deps.selinuxEnabled));
    } catch (err) {
      deps.log.warn({ pod: podRef(pod), containerName: container.name, err }, 'Failed to create the termination message file; the container runs without one');
    }
  }
  return mounts;
}
