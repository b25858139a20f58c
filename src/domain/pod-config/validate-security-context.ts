/**
 * The security contexts in Go's ValidatePodCreate (ValidateSecurityContext for each container,
 * validatePodSpecSecurityContext for the pod) beyond the ids, which validate-pod-create.ts checks:
 * the seccomp profile (validate-seccomp.ts), procMount, allowPrivilegeEscalation against
 * privileged and CAP_SYS_ADMIN, the sysctl names, fsGroupChangePolicy, a shared process namespace
 * with hostPID, and a pod in a user namespace of its own (hostUsers: false) that shares a host
 * namespace (validateHostUsers). seLinuxOptions are free strings in Go v1.26, and are here too.
 */
import type { PodSpec, SecurityContext, Sysctl } from '../pod/types.js';
import { duplicate, forbidden, invalid, invalidShown, notSupported, required } from './field-errors.js';
import { seccompProfileErrors } from './validate-seccomp.js';

const PROC_MOUNT_TYPES = ['Default', 'Unmasked'];
const FS_GROUP_CHANGE_POLICIES = ['Always', 'OnRootMismatch'];

/** Go's SysctlMaxLength (k8s.io/component-helpers sysctl validation): a name of at most 253 bytes. */
export const SYSCTL_MAX_LENGTH = 253;
const SYSCTL_SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
/** Go's SysctlContainSlashFmt: segments joined by '.' or '/'; no empty segment, no space. */
const SYSCTL_NAME = `^(${SYSCTL_SEGMENT}[\\./])*${SYSCTL_SEGMENT}$`;
const SYSCTL_NAME_PATTERN = new RegExp(SYSCTL_NAME);

/** ValidateSecurityContext, for the container at `path` (`spec.containers[0]`). */
export function containerSecurityContextErrors(path: string, sc: SecurityContext | undefined): string[] {
  if (sc === undefined) return [];
  const at = `${path}.securityContext`;
  const errors: string[] = [];
  if (sc.procMount !== undefined && !PROC_MOUNT_TYPES.includes(sc.procMount)) errors.push(notSupported(`${at}.procMount`, sc.procMount, PROC_MOUNT_TYPES));
  errors.push(...seccompProfileErrors(`${at}.seccompProfile`, sc.seccompProfile));
  if (sc.allowPrivilegeEscalation === false) {
    // Go prints the whole struct (%#v, pointers and all); its JSON says the same here.
    const shown = JSON.stringify(sc);
    if (sc.privileged === true) errors.push(invalidShown(at, shown, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    for (const cap of sc.capabilities?.add ?? []) {
      if (cap === 'CAP_SYS_ADMIN') errors.push(invalidShown(at, shown, 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
    }
  }
  return errors;
}

/** validatePodSpecSecurityContext: the sysctls, the process namespace and the seccomp profile. */
export function podSecurityContextErrors(spec: PodSpec): string[] {
  const sc = spec.securityContext;
  const errors: string[] = [];
  // Go's internal type keeps shareProcessNamespace in the security context, hence the path.
  if (spec.shareProcessNamespace === true && spec.hostPID === true) {
    errors.push(invalid('spec.securityContext.shareProcessNamespace', true, 'ShareProcessNamespace and HostPID cannot both be enabled'));
  }
  errors.push(...sysctlErrors('spec.securityContext.sysctls', sc?.sysctls ?? []));
  const policy = sc?.fsGroupChangePolicy;
  if (policy !== undefined && !FS_GROUP_CHANGE_POLICIES.includes(policy)) {
    errors.push(notSupported('spec.securityContext.fsGroupChangePolicy', policy, FS_GROUP_CHANGE_POLICIES));
  }
  errors.push(...seccompProfileErrors('spec.securityContext.seccompProfile', sc?.seccompProfile));
  errors.push(...hostUsersErrors(spec));
  return errors;
}

/** validateHostUsers: a pod with a user namespace of its own shares no namespace with the host (Go's paths, capitals included). */
function hostUsersErrors(spec: PodSpec): string[] {
  if (spec.hostUsers !== false) return [];
  const shared: [string, boolean | undefined][] = [['spec.hostNetwork', spec.hostNetwork], ['spec.HostPID', spec.hostPID], ['spec.HostIPC', spec.hostIPC]];
  return shared.filter(([, on]) => on === true).map(([path]) => forbidden(path, 'when `pod.Spec.HostUsers` is false'));
}

/** Go's IsValidSysctlName, and validateSysctls' required and duplicate names (values are free text, as in Go). */
export function isValidSysctlName(name: string): boolean {
  return Buffer.byteLength(name) <= SYSCTL_MAX_LENGTH && SYSCTL_NAME_PATTERN.test(name);
}

function sysctlErrors(path: string, sysctls: readonly Sysctl[]): string[] {
  const errors: string[] = [];
  const seen = new Set<string>();
  sysctls.forEach(({ name }, i) => {
    const at = `${path}[${i}].name`;
    if (!name) errors.push(required(at));
    else if (!isValidSysctlName(name)) errors.push(invalid(at, name, `must have at most ${SYSCTL_MAX_LENGTH} characters and match regex ${SYSCTL_NAME}`));
    else if (seen.has(name)) errors.push(duplicate(at, name));
    seen.add(name);
  });
  return errors;
}
