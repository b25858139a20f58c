/**
 * The seccomp profile the kubelet asks the runtime for (getSeccompProfile / fieldSeccompProfile):
 * the container's seccompProfile, else the pod's, else RuntimeDefault when seccompDefault is on and
 * Unconfined when it is off. A sandbox has no container, so it gets the pod's. A profile is always
 * sent, Unconfined included, as Go does. Privileged containers get the same profile: the runtime,
 * not the kubelet, runs them unconfined (containerd and CRI-O ignore seccomp for them).
 *
 * Stricter than Go, which validation makes the same for every pod the API server or a manifest
 * gives: a Localhost profile whose path leaves the profile root, a Localhost type without a profile
 * name, or an unknown type fails the container's config (CreateContainerConfigError) instead of
 * reading a file outside the root or running unconfined.
 */
import { posix } from 'node:path';
import { KubeletError } from '../errors.js';
import type { Container, Pod, SeccompProfile } from '../pod/types.js';
import type { CriSecurityProfile } from './cri-config.js';

export interface SeccompPolicy {
  /** seccompDefault (the configuration's or --seccomp-default): RuntimeDefault when nothing is asked. */
  runtimeDefault: boolean;
  /** <root-dir>/seccomp: Localhost profiles are paths relative to it. */
  profileRoot: string;
}

/** Go's seccompProfileRoot: the "seccomp" directory under --root-dir. */
export function seccompProfileRoot(rootDir: string): string {
  return posix.join(rootDir, 'seccomp');
}

/**
 * The profile's file: joined and cleaned as filepath.Join does (an absolute name lands under the
 * root too), and refused unless it is still under the root.
 */
export function localhostProfilePath(profileRoot: string, name: string): string {
  const root = posix.normalize(profileRoot);
  const path = posix.join(root, name);
  if (!path.startsWith(root.endsWith('/') ? root : `${root}/`)) {
    throw new KubeletError('KLT_ERR_CONTAINER_CONFIG', `seccomp profile ${JSON.stringify(name)} is outside the profile root ${JSON.stringify(root)}`);
  }
  return path;
}

function fieldProfile(profile: SeccompProfile, policy: SeccompPolicy): CriSecurityProfile {
  const type: string = profile.type;
  if (type === 'RuntimeDefault') return { profile_type: 'RuntimeDefault' };
  if (type === 'Unconfined') return { profile_type: 'Unconfined' };
  if (type !== 'Localhost') throw new KubeletError('KLT_ERR_CONTAINER_CONFIG', `unknown seccomp profile type ${JSON.stringify(type)}`);
  if (!profile.localhostProfile) throw new KubeletError('KLT_ERR_CONTAINER_CONFIG', 'seccomp profile type Localhost names no localhostProfile');
  return { profile_type: 'Localhost', localhost_ref: localhostProfilePath(policy.profileRoot, profile.localhostProfile) };
}

export function seccompProfileFor(pod: Pod, container: Container | undefined, policy: SeccompPolicy): CriSecurityProfile {
  const asked = container?.securityContext?.seccompProfile ?? pod.spec.securityContext?.seccompProfile;
  if (asked) return fieldProfile(asked, policy);
  return { profile_type: policy.runtimeDefault ? 'RuntimeDefault' : 'Unconfined' };
}
