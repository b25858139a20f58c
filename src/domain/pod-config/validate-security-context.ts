/**
 * The security contexts in Go's ValidatePodCreate (ValidateSecurityContext for each container,
 * validatePodSpecSecurityContext for the pod) beyond the ids, which validate-pod-create.ts checks:
 * the seccomp profile (validate-seccomp.ts), procMount, allowPrivilegeEscalation against
 * privileged and CAP_SYS_ADMIN, the sysctl names, and a shared process namespace with hostPID.
 * seLinuxOptions are free strings in Go v1.26, and are here too.
 */
import type { PodSpec, SecurityContext, Sysctl } from '../pod/types.js';
import { duplicate, invalid, invalidShown, notSupported, required } from './field-errors.js';
import { seccompProfileErrors } from './validate-seccomp.js';

const PROC_MOUNT_TYPES = ['Default', 'Unmasked'];

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
  errors.push(...seccompProfileErrors('spec.securityContext.seccompProfile', sc?.seccompProfile));
  return errors;
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
