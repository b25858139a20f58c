/**
 * Who a running container is, for cAdvisor's labels: its runtime id (cAdvisor's `name`, the
 * container's first alias) and image, from the pods' latest statuses. The stats summary names a
 * container only by pod and container name; these fill in the rest.
 */
import type { ContainerStatus, Pod } from '../pod/types.js';

export interface ContainerIdentity {
  /** The runtime's id, without the `<runtime>://` of the status's containerID. */
  runtimeId: string;
  image: string;
}

/** The runtime's id from a status's `<runtime>://<id>` containerID. */
export function runtimeContainerId(containerID: string | undefined): string {
  return (containerID ?? '').replace(/^[a-z0-9-]+:\/\//, '');
}

/** The lookup key of a pod's container. */
export const containerKey = (namespace: string, pod: string, container: string) => `${namespace}/${pod}/${container}`;

/** Each running container's identity, by containerKey. */
export function containerIdentities(pods: readonly Pod[]): Map<string, ContainerIdentity> {
  const out = new Map<string, ContainerIdentity>();
  for (const pod of pods) {
    const namespace = pod.metadata.namespace ?? 'default';
    const statuses: ContainerStatus[] = [
      ...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? []), ...(pod.status?.ephemeralContainerStatuses ?? []),
    ];
    for (const s of statuses) {
      if (!s.state?.running || !s.containerID) continue;
      out.set(containerKey(namespace, pod.metadata.name, s.name), { runtimeId: runtimeContainerId(s.containerID), image: s.image });
    }
  }
  return out;
}
