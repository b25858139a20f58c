/**
 * AppArmor (Go: pkg/security/apparmor, and kuberuntime's getAppArmorProfile). v1.26 pods ask for a
 * profile per container with the annotation `container.apparmor.security.beta.kubernetes.io/<name>`:
 * `runtime/default`, `localhost/<profile>` or `unconfined`. The runtime is sent the profile twice,
 * as later kubelets do: as the `apparmor` SecurityProfile and as the deprecated `apparmor_profile`
 * string, the one containerd 1.6 reads. A container without an annotation (or with a value of no
 * known form) is sent neither, and the runtime applies its default.
 *
 * Admission (Go's appArmorAdmitHandler, a soft admit handler): a pending pod that asks for any
 * profile but `unconfined` cannot run on a host without AppArmor (reason AppArmor, message
 * `Cannot enforce AppArmor: AppArmor is not enabled on the host`), nor with a value of no known
 * form (`Cannot enforce AppArmor: invalid AppArmor profile name: "…"`). Pure.
 */
import { allContainers } from '../pod/pod-containers.js';
import type { Pod } from '../pod/types.js';
import type { CriSecurityProfile } from './cri-config.js';

export const APPARMOR_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';
export const APPARMOR_RUNTIME_DEFAULT = 'runtime/default';
export const APPARMOR_UNCONFINED = 'unconfined';
export const APPARMOR_LOCALHOST_PREFIX = 'localhost/';
export const APPARMOR_REASON = 'AppArmor';

export interface CriAppArmor {
  apparmor: CriSecurityProfile;
  apparmor_profile: string;
}

/** The profile the container's annotation asks for, in both CRI forms; undefined when it asks for none. */
export function appArmorProfileFor(pod: Pod, containerName: string): CriAppArmor | undefined {
  const value = pod.metadata.annotations?.[APPARMOR_ANNOTATION_PREFIX + containerName];
  if (value === undefined) return undefined;
  if (value === APPARMOR_RUNTIME_DEFAULT) return { apparmor: { profile_type: 'RuntimeDefault' }, apparmor_profile: value };
  if (value === APPARMOR_UNCONFINED) return { apparmor: { profile_type: 'Unconfined' }, apparmor_profile: value };
  if (value.startsWith(APPARMOR_LOCALHOST_PREFIX)) {
    return { apparmor: { profile_type: 'Localhost', localhost_ref: value.slice(APPARMOR_LOCALHOST_PREFIX.length) }, apparmor_profile: value };
  }
  return undefined;
}

/** Go's isRequired: some container's annotation asks for a profile other than unconfined. */
function requiresAppArmor(pod: Pod): boolean {
  return Object.entries(pod.metadata.annotations ?? {})
    .some(([key, value]) => key.startsWith(APPARMOR_ANNOTATION_PREFIX) && value !== APPARMOR_UNCONFINED);
}

/** Go's ValidateAppArmorProfileFormat: empty, runtime/default, unconfined or localhost/…. */
export function profileFormatError(profile: string): string | undefined {
  if (profile === '' || profile === APPARMOR_RUNTIME_DEFAULT || profile === APPARMOR_UNCONFINED || profile.startsWith(APPARMOR_LOCALHOST_PREFIX)) return undefined;
  return `invalid AppArmor profile name: ${JSON.stringify(profile)}`;
}

export type AppArmorAdmission = { admit: true } | { admit: false; reason: string; message: string };

/** Whether the pod may run as far as AppArmor goes, on a host with or without it; see the file comment. */
export function admitAppArmor(pod: Pod, hostAppArmorEnabled: boolean): AppArmorAdmission {
  // Pods already running or finished are not checked again; a pod from a file has no phase yet.
  const phase = pod.status?.phase;
  if (phase !== undefined && phase !== 'Pending') return { admit: true };
  if (!requiresAppArmor(pod)) return { admit: true };
  const refuse = (why: string): AppArmorAdmission => ({ admit: false, reason: APPARMOR_REASON, message: `Cannot enforce AppArmor: ${why}` });
  if (!hostAppArmorEnabled) return refuse('AppArmor is not enabled on the host');
  for (const { name } of allContainers(pod)) {
    const error = profileFormatError(pod.metadata.annotations?.[APPARMOR_ANNOTATION_PREFIX + name] ?? '');
    if (error) return refuse(error);
  }
  return { admit: true };
}
