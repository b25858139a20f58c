/**
 * The user a pod's volume files may be given to (Go: pkg/volume/util FsUserFrom, which the volume
 * manager passes to every mounter as MounterArgs.FsUser).
 */
import type { Pod } from '../pod/types.js';

/**
 * The one uid every container of the pod runs as (a container's runAsUser, else the pod's), or
 * undefined when a container sets none or two containers differ.
 */
export function fsUserFrom(pod: Pod): number | undefined {
  let fsUser: number | undefined;
  for (const container of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
    const runAsUser = container.securityContext?.runAsUser ?? pod.spec.securityContext?.runAsUser;
    if (runAsUser === undefined || (fsUser !== undefined && fsUser !== runAsUser)) return undefined;
    fsUser = runAsUser;
  }
  return fsUser;
}
