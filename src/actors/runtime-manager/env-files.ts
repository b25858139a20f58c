/**
 * The env files a container's `fileKeyRef`s name, read before its config is made (the domain's env
 * builder is synchronous): each (volume, path) once, from the pod's volume on the node, whether or
 * not the container mounts it (Go looks in every volume of the pod).
 */
import type { Container, Pod } from '../../domain/pod/types.js';
import type { EnvContext, EnvFileRead } from '../../domain/runtime/env.js';
import { podVolumePath, type ContainerMountDeps } from './container-mounts.js';

const NO_VOLUME: EnvFileRead = { noVolume: true };
const keyOf = (volumeName: string, path: string) => `${volumeName}\u0000${path}`;

/** undefined when the container names no env file (nothing is read). */
export async function readContainerEnvFiles(deps: ContainerMountDeps | undefined, pod: Pod, container: Container): Promise<EnvContext['envFiles']> {
  const refs = new Map<string, { volumeName: string; path: string }>();
  for (const e of container.env ?? []) {
    const ref = e.valueFrom?.fileKeyRef;
    if (ref) refs.set(keyOf(ref.volumeName ?? '', ref.path ?? ''), { volumeName: ref.volumeName ?? '', path: ref.path ?? '' });
  }
  if (refs.size === 0) return undefined;
  const reads = new Map<string, EnvFileRead>();
  await Promise.all([...refs].map(async ([key, ref]) => {
    const volume = (pod.spec.volumes ?? []).find((v) => v.name === ref.volumeName);
    const volumePath = deps && volume ? podVolumePath(deps, pod, volume).volumePath : undefined;
    reads.set(key, deps && volumePath !== undefined ? await deps.files.readEnvFile(volumePath, ref.path) : NO_VOLUME);
  }));
  return (volumeName, path) => reads.get(keyOf(volumeName, path)) ?? NO_VOLUME;
}
