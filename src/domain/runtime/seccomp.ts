/**
 * The seccomp profile the kubelet asks the runtime for (getSeccompProfile / fieldSeccompProfile):
 * the container's seccompProfile, else the pod's, else RuntimeDefault when seccompDefault is on and
 * Unconfined when it is off. A sandbox has no container, so it gets the pod's. A profile is always
 * sent, Unconfined included, as Go does. Privileged containers get the same profile: the runtime,
 * not the kubelet, runs them unconfined (containerd and CRI-O ignore seccomp for them).
 */
import { posix } from 'node:path';
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

function fieldProfile(profile: SeccompProfile, policy: SeccompPolicy): CriSecurityProfile {
  if (profile.type === 'RuntimeDefault') return { profile_type: 'RuntimeDefault' };
  if (profile.type === 'Localhost' && profile.localhostProfile) {
    // filepath.Join: cleaned, and an absolute localhostProfile still lands under the root.
    return { profile_type: 'Localhost', localhost_ref: posix.join(policy.profileRoot, profile.localhostProfile) };
  }
  // Unconfined, an unknown type, or Localhost without a profile name (validation refuses the last).
  return { profile_type: 'Unconfined' };
}

export function seccompProfileFor(pod: Pod, container: Container | undefined, policy: SeccompPolicy): CriSecurityProfile {
  const asked = container?.securityContext?.seccompProfile ?? pod.spec.securityContext?.seccompProfile;
  if (asked) return fieldProfile(asked, policy);
  return { profile_type: policy.runtimeDefault ? 'RuntimeDefault' : 'Unconfined' };
}
