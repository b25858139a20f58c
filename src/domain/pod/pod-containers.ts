/**
 * A pod's containers of every kind, for what finds a container by name whatever its kind: logs,
 * exec, attach, the kill of a container, the ConfigMaps and Secrets a pod refers to (Go's
 * podutil.VisitContainers with AllContainers).
 */
import type { Container, Pod } from './types.js';

/** Init, regular, then ephemeral containers, in spec order. */
export function allContainers(pod: Pod): Container[] {
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers, ...(pod.spec.ephemeralContainers ?? [])];
}

/** The container of any kind with this name. */
export function findContainer(pod: Pod, name: string): Container | undefined {
  return allContainers(pod).find((c) => c.name === name);
}
