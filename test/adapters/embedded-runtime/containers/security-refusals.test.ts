/**
 * What the embedded runtime refuses rather than run weaker than asked, against what the kubelet
 * really sends: the security context of a plain pod is accepted (every pod would fail otherwise),
 * each thing a pod spec can ask for and the runtime cannot give is refused naming its field.
 */
import { describe, expect, it } from 'vitest';
import { refuseUnenforcedContainerSecurity, refuseUnenforcedSandboxSecurity } from '../../../../src/adapters/embedded-runtime/containers/security-refusals.js';
import type { Container, Pod } from '../../../../src/domain/pod/types.js';
import { containerSecurityContext } from '../../../../src/domain/runtime/security-context.js';
import type { LinuxContainerSecurityContext__Output } from '../../../../src/generated/runtime/v1/LinuxContainerSecurityContext.js';

const unconfined = { runtimeDefault: false, profileRoot: '/var/lib/kubelet/seccomp' };

/** The context the kubelet sends for this pod, as the runtime decodes it (proto3 defaults filled in). */
function sent(pod: Partial<Pod['metadata']> = {}, sc: Container['securityContext'] = undefined): LinuxContainerSecurityContext__Output {
  const container: Container = { name: 'app', image: 'busybox', ...(sc ? { securityContext: sc } : {}) };
  const { capabilities, ...built } = containerSecurityContext({ metadata: { name: 'p', uid: 'u', ...pod }, spec: { containers: [container] } }, container, unconfined);
  return {
    privileged: false, namespace_options: null, selinux_options: null, run_as_user: null, run_as_username: '',
    readonly_rootfs: false, supplemental_groups: [], apparmor_profile: '', no_new_privs: false, run_as_group: null,
    masked_paths: [], readonly_paths: [], seccomp: null, apparmor: null,
    ...built,
    capabilities: capabilities ? { add_capabilities: capabilities.add_capabilities ?? [], drop_capabilities: capabilities.drop_capabilities ?? [] } : null,
  } as LinuxContainerSecurityContext__Output;
}

const apparmor = (container: string, value: string) => ({ annotations: { [`container.apparmor.security.beta.kubernetes.io/${container}`]: value } });

describe('refuseUnenforcedContainerSecurity', () => {
  it.each([
    ['a plain pod (default masked and read-only paths)', sent()],
    ['procMount: Unmasked (no paths)', sent({}, { procMount: 'Unmasked' })],
    ['an unconfined AppArmor annotation', sent(apparmor('app', 'unconfined'))],
    ['allowPrivilegeEscalation: true', sent({}, { allowPrivilegeEscalation: true })],
    ['privileged, run as root', sent({}, { privileged: true })],
    ['added capabilities, run as root', sent({}, { capabilities: { add: ['NET_ADMIN'] } })],
    ['empty SELinux options', { ...sent(), selinux_options: { user: '', role: '', type: '', level: '' } }],
  ])('accepts %s', (_what, sc) => {
    expect(() => refuseUnenforcedContainerSecurity(sc, 0)).not.toThrow();
  });

  it.each([
    ['runtime/default AppArmor', sent(apparmor('app', 'runtime/default')), 'apparmor RuntimeDefault'],
    ['a localhost AppArmor profile', sent(apparmor('app', 'localhost/k8s-deny-write')), 'apparmor Localhost "k8s-deny-write"'],
    ['the deprecated AppArmor string alone', { ...sent(), apparmor_profile: 'runtime/default' }, 'apparmor "runtime/default"'],
    ['SELinux options', sent({}, { seLinuxOptions: { level: 's0:c123,c456' } }), 'selinux_options :::s0:c123,c456'],
    ['allowPrivilegeEscalation: false', sent({}, { allowPrivilegeEscalation: false }), 'no_new_privs true'],
    ['readOnlyRootFilesystem', sent({}, { readOnlyRootFilesystem: true }), 'readonly_rootfs true'],
    ['dropped capabilities', sent({}, { capabilities: { drop: ['ALL'] } }), 'capabilities.drop_capabilities ["ALL"]'],
    ['masked paths other than the defaults', { ...sent(), masked_paths: ['/proc/kcore'] }, 'masked_paths ["/proc/kcore"]'],
    ['read-only paths other than the defaults', { ...sent(), readonly_paths: ['/proc/sys'] }, 'readonly_paths ["/proc/sys"]'],
    ['added capabilities, run as a user', sent({}, { runAsUser: 1000, capabilities: { add: ['NET_ADMIN'] } }), 'capabilities.add_capabilities ["NET_ADMIN"]'],
    ['privileged, run as a user', sent({}, { runAsUser: 1000, privileged: true }), 'privileged true'],
  ])('refuses %s, naming the field', (_what, sc, named) => {
    expect(() => refuseUnenforcedContainerSecurity(sc, 0)).toThrow(expect.objectContaining({
      code: 'KLT_ERR_CRI_INVALID_ARGUMENT',
      message: expect.stringContaining(`container linux.security_context.${named} is not supported by the embedded runtime`),
    }));
  });

  it('refuses privileged and added capabilities when the runtime itself is not root', () => {
    expect(() => refuseUnenforcedContainerSecurity(sent({}, { privileged: true }), 1000)).toThrow('runs as uid 1000');
    expect(() => refuseUnenforcedContainerSecurity(sent({}, { capabilities: { add: ['NET_RAW'] } }), 1000)).toThrow('capabilities.add_capabilities');
  });
});

describe('refuseUnenforcedSandboxSecurity', () => {
  it('refuses SELinux options with a value, accepts none', () => {
    expect(() => refuseUnenforcedSandboxSecurity(null)).not.toThrow();
    expect(() => refuseUnenforcedSandboxSecurity({ user: '', role: '', type: 'spc_t', level: '' }))
      .toThrow('sandbox linux.security_context.selinux_options ::spc_t: is not supported by the embedded runtime');
  });
});
