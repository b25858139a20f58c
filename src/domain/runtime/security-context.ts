/**
 * The container's effective security context (determineEffectiveSecurityContext): the pod's
 * runAsUser/runAsGroup unless the container overrides them, the pod's supplemental groups and
 * fsGroup, and the container's own privileged / readOnlyRootFilesystem / capabilities /
 * allowPrivilegeEscalation. SELinux, seccomp, AppArmor, masked and read-only paths are not set yet.
 */
import type { Container, Pod } from '../pod/types.js';
import type { CriLinuxContainerSecurityContext, CriLinuxSandboxSecurityContext } from './cri-config.js';
import { namespacesForPod } from './namespaces.js';

function supplementalGroups(pod: Pod): string[] {
  const sc = pod.spec.securityContext;
  const groups = [...(sc?.fsGroup !== undefined ? [sc.fsGroup] : []), ...(sc?.supplementalGroups ?? [])];
  return groups.map(String);
}

export function containerSecurityContext(pod: Pod, container: Container): CriLinuxContainerSecurityContext {
  const podSc = pod.spec.securityContext;
  const sc = container.securityContext;
  const out: CriLinuxContainerSecurityContext = {
    privileged: sc?.privileged ?? false,
    readonly_rootfs: sc?.readOnlyRootFilesystem ?? false,
    namespace_options: namespacesForPod(pod),
    // AddNoNewPrivileges: only an explicit allowPrivilegeEscalation: false sets no_new_privs.
    no_new_privs: sc?.allowPrivilegeEscalation === false,
  };
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

/** The sandbox's security context: pod-level user/group, namespaces, privileged if any container is. */
export function sandboxSecurityContext(pod: Pod): CriLinuxSandboxSecurityContext {
  const podSc = pod.spec.securityContext;
  const all = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])];
  const out: CriLinuxSandboxSecurityContext = {
    namespace_options: namespacesForPod(pod),
    privileged: all.some((c) => c.securityContext?.privileged === true),
  };
  if (podSc?.runAsUser !== undefined) out.run_as_user = { value: String(podSc.runAsUser) };
  if (podSc?.runAsGroup !== undefined) out.run_as_group = { value: String(podSc.runAsGroup) };
  const groups = supplementalGroups(pod);
  if (groups.length > 0) out.supplemental_groups = groups;
  return out;
}
