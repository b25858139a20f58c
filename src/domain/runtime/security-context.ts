/**
 * The container's effective security context (determineEffectiveSecurityContext): the pod's
 * runAsUser/runAsGroup and seLinuxOptions unless the container overrides them (seLinuxOptions as a
 * whole, not field by field), the pod's supplemental groups and fsGroup, and the container's own
 * privileged / readOnlyRootFilesystem / capabilities / allowPrivilegeEscalation, the seccomp profile
 * (seccomp.ts), the AppArmor profile (apparmor.ts), the masked and read-only paths of its procMount
 * (masked-paths.ts), and the runAsNonRoot check.
 */
import { KubeletError } from '../errors.js';
import type { Container, Pod, SELinuxOptions } from '../pod/types.js';
import { appArmorProfileFor } from './apparmor.js';
import type { CriLinuxContainerSecurityContext, CriLinuxSandboxSecurityContext, CriSELinuxOption } from './cri-config.js';
import { procMountPaths } from './masked-paths.js';
import { namespacesForPod } from './namespaces.js';
import { seccompProfileFor, type SeccompPolicy } from './seccomp.js';

function supplementalGroups(pod: Pod): string[] {
  const sc = pod.spec.securityContext;
  const groups = [...(sc?.fsGroup !== undefined ? [sc.fsGroup] : []), ...(sc?.supplementalGroups ?? [])];
  return groups.map(String);
}

function criSELinuxOption(o: SELinuxOptions): CriSELinuxOption {
  return { user: o.user ?? '', role: o.role ?? '', type: o.type ?? '', level: o.level ?? '' };
}

export function containerSecurityContext(pod: Pod, container: Container, seccomp: SeccompPolicy): CriLinuxContainerSecurityContext {
  const podSc = pod.spec.securityContext;
  const sc = container.securityContext;
  const out: CriLinuxContainerSecurityContext = {
    privileged: sc?.privileged ?? false,
    readonly_rootfs: sc?.readOnlyRootFilesystem ?? false,
    namespace_options: namespacesForPod(pod),
    // AddNoNewPrivileges: only an explicit allowPrivilegeEscalation: false sets no_new_privs.
    no_new_privs: sc?.allowPrivilegeEscalation === false,
    seccomp: seccompProfileFor(pod, container, seccomp),
    ...procMountPaths(sc?.procMount),
    ...appArmorProfileFor(pod, container.name),
  };
  const seLinux = sc?.seLinuxOptions ?? podSc?.seLinuxOptions;
  if (seLinux) out.selinux_options = criSELinuxOption(seLinux);
  const runAsUser = sc?.runAsUser ?? podSc?.runAsUser;
  if (runAsUser !== undefined) out.run_as_user = { value: String(runAsUser) };
  const runAsGroup = sc?.runAsGroup ?? podSc?.runAsGroup;
  if (runAsGroup !== undefined) out.run_as_group = { value: String(runAsGroup) };
  if (sc?.capabilities) {
    // Passed as written ("NET_ADMIN"); the runtime adds the CAP_ prefix, as with the Go kubelet.
    out.capabilities = { add_capabilities: [...(sc.capabilities.add ?? [])], drop_capabilities: [...(sc.capabilities.drop ?? [])] };
  }
  const groups = supplementalGroups(pod);
  if (groups.length > 0) out.supplemental_groups = groups;
  return out;
}

/**
 * The sandbox's security context: pod-level user/group, namespaces, privileged if any container is,
 * the pod-level seccomp profile and seLinuxOptions.
 */
export function sandboxSecurityContext(pod: Pod, seccomp: SeccompPolicy): CriLinuxSandboxSecurityContext {
  const podSc = pod.spec.securityContext;
  const all = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])];
  const out: CriLinuxSandboxSecurityContext = {
    namespace_options: namespacesForPod(pod),
    privileged: all.some((c) => c.securityContext?.privileged === true),
    seccomp: seccompProfileFor(pod, undefined, seccomp),
  };
  if (podSc?.runAsUser !== undefined) out.run_as_user = { value: String(podSc.runAsUser) };
  if (podSc?.runAsGroup !== undefined) out.run_as_group = { value: String(podSc.runAsGroup) };
  if (podSc?.seLinuxOptions) out.selinux_options = criSELinuxOption(podSc.seLinuxOptions);
  const groups = supplementalGroups(pod);
  if (groups.length > 0) out.supplemental_groups = groups;
  return out;
}

/** The user an image runs as, from ImageStatus: a numeric uid, a user name, or neither (root). */
export interface ImageUser { uid?: number; username?: string }

/**
 * runAsNonRoot enforcement (verifyRunAsNonRoot): an explicit runAsUser 0 breaks the policy; without
 * one, the image's user decides: uid 0 or no user at all (root) is refused, and so is a non-numeric
 * user name, which cannot be checked.
 */
export function verifyRunAsNonRoot(pod: Pod, container: Container, image: ImageUser): void {
  const runAsNonRoot = container.securityContext?.runAsNonRoot ?? pod.spec.securityContext?.runAsNonRoot;
  if (!runAsNonRoot) return;
  const ref = `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;
  const runAsUser = container.securityContext?.runAsUser ?? pod.spec.securityContext?.runAsUser;
  if (runAsUser !== undefined) {
    if (runAsUser === 0) throw new KubeletError('KLT_ERR_CONTAINER_CONFIG', `container's runAsUser breaks non-root policy (pod: "${ref}", container: ${container.name})`);
    return;
  }
  if (image.uid === undefined && image.username) {
    throw new KubeletError('KLT_ERR_CONTAINER_CONFIG', `container has runAsNonRoot and image has non-numeric user (${image.username}), cannot verify user is non-root (pod: "${ref}", container: ${container.name})`);
  }
  if ((image.uid ?? 0) === 0) {
    throw new KubeletError('KLT_ERR_CONTAINER_CONFIG', `container has runAsNonRoot and image will run as root (pod: "${ref}", container: ${container.name})`);
  }
}

/** Whether starting this container needs the image's user (runAsNonRoot without runAsUser). */
export function needsImageUser(pod: Pod, container: Container): boolean {
  const runAsNonRoot = container.securityContext?.runAsNonRoot ?? pod.spec.securityContext?.runAsNonRoot;
  const runAsUser = container.securityContext?.runAsUser ?? pod.spec.securityContext?.runAsUser;
  return runAsNonRoot === true && runAsUser === undefined;
}
