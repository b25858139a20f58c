/**
 * Every container of a pod spec with its field path, init containers first, then regular, then
 * ephemeral (Go's VisitContainersWithPath): validation rules that apply to containers of any kind.
 */
import type { Container, PodSpec } from '../pod/types.js';

export function containersWithPaths(spec: PodSpec): [path: string, container: Container][] {
  const groups = [
    ['spec.initContainers', spec.initContainers ?? []],
    ['spec.containers', spec.containers],
    ['spec.ephemeralContainers', spec.ephemeralContainers ?? []],
  ] as const;
  return groups.flatMap(([group, containers]) => containers.map((c, i): [string, Container] => [`${group}[${i}]`, c]));
}
