/**
 * The security settings the embedded runtime cannot apply, refused at CreateContainer (and
 * RunPodSandbox) with INVALID_ARGUMENT naming the field, rather than run a process weaker than its
 * pod asked. The line is drawn at what the pod spec asks for:
 * - refused: an AppArmor profile other than unconfined, SELinux options, no_new_privs
 *   (allowPrivilegeEscalation: false), a read-only root file system, dropped capabilities, and
 *   added capabilities or privileged for a process that will not run as root (a root host process
 *   holds every capability and device already, so it is given what these ask);
 * - accepted though not applied: the masked and read-only /proc paths the kubelet sends for every
 *   container that does not ask for `procMount: Unmasked` (Go's defaults): refusing them would
 *   refuse every pod, and the embedded runtime's lack of isolation is documented (index.ts). A
 *   list other than the defaults or none is refused.
 * Seccomp has its own refusal (seccomp-refusal.ts).
 */
import { KubeletError } from '../../../domain/errors.js';
import { DEFAULT_MASKED_PATHS, DEFAULT_READONLY_PATHS } from '../../../domain/runtime/masked-paths.js';
import type { LinuxContainerSecurityContext__Output } from '../../../generated/runtime/v1/LinuxContainerSecurityContext.js';
import type { SELinuxOption__Output } from '../../../generated/runtime/v1/SELinuxOption.js';

type Asker = 'sandbox' | 'container';

function refuse(what: Asker, field: string, asked: string, why: string): never {
  throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', `${what} linux.security_context.${field} ${asked} is not supported by the embedded runtime, which ${why}`);
}

function refuseSELinux(what: Asker, options: SELinuxOption__Output | null | undefined): void {
  if (!options || (!options.user && !options.role && !options.type && !options.level)) return;
  refuse(what, 'selinux_options', [options.user, options.role, options.type, options.level].join(':'), 'labels no process for SELinux');
}

/** The profile asked for, in either field (containerd 1.6 reads the string), unless unconfined or none. */
function askedAppArmor(sc: LinuxContainerSecurityContext__Output): string | undefined {
  const profile = sc.apparmor;
  if (profile && profile.profile_type !== 'Unconfined') {
    return profile.profile_type === 'Localhost' ? `Localhost ${JSON.stringify(profile.localhost_ref)}` : profile.profile_type;
  }
  const name = sc.apparmor_profile;
  return name && name !== 'unconfined' ? JSON.stringify(name) : undefined;
}

function isNoneOrDefault(paths: readonly string[], defaults: readonly string[]): boolean {
  if (paths.length === 0) return true;
  const wanted = new Set(defaults);
  return paths.length === wanted.size && paths.every((p) => wanted.has(p));
}

export function refuseUnenforcedSandboxSecurity(options: SELinuxOption__Output | null | undefined): void {
  refuseSELinux('sandbox', options);
}

/** `runtimeUid` is the uid the runtime runs as: a container without run_as_user runs as it too. */
export function refuseUnenforcedContainerSecurity(sc: LinuxContainerSecurityContext__Output | null | undefined, runtimeUid: number): void {
  if (!sc) return;
  refuseSELinux('container', sc.selinux_options);
  const appArmor = askedAppArmor(sc);
  if (appArmor) refuse('container', 'apparmor', appArmor, 'runs processes without an AppArmor profile; only unconfined is');
  if (sc.no_new_privs) refuse('container', 'no_new_privs', 'true', 'starts processes without setting no_new_privs');
  if (sc.readonly_rootfs) refuse('container', 'readonly_rootfs', 'true', 'runs processes on the host\'s own writable file system');
  if (!isNoneOrDefault(sc.masked_paths ?? [], DEFAULT_MASKED_PATHS)) {
    refuse('container', 'masked_paths', JSON.stringify(sc.masked_paths), 'masks nothing (the kubelet\'s default list is accepted, and not applied)');
  }
  if (!isNoneOrDefault(sc.readonly_paths ?? [], DEFAULT_READONLY_PATHS)) {
    refuse('container', 'readonly_paths', JSON.stringify(sc.readonly_paths), 'makes nothing read-only (the kubelet\'s default list is accepted, and not applied)');
  }
  const drops = sc.capabilities?.drop_capabilities ?? [];
  if (drops.length > 0) refuse('container', 'capabilities.drop_capabilities', JSON.stringify(drops), 'drops no capability');
  const uid = sc.run_as_user ? Number(sc.run_as_user.value) : runtimeUid;
  const runsAsRoot = runtimeUid === 0 && uid === 0;
  const adds = sc.capabilities?.add_capabilities ?? [];
  if (adds.length > 0 && !runsAsRoot) {
    refuse('container', 'capabilities.add_capabilities', JSON.stringify(adds), `grants capabilities only by running a process as root, and this one runs as uid ${uid}`);
  }
  if (sc.privileged && !runsAsRoot) {
    refuse('container', 'privileged', 'true', `gives a privileged container only what a root process on the host has, and this one runs as uid ${uid}`);
  }
}
