import { describe, expect, it } from 'vitest';
import { DEFAULT_MASKED_PATHS, DEFAULT_READONLY_PATHS } from '../../../src/domain/runtime/masked-paths.js';
import { containerSecurityContext, sandboxSecurityContext, verifyRunAsNonRoot, type ImageUser } from '../../../src/domain/runtime/security-context.js';
import type { Container, Pod, PodSecurityContext, SecurityContext } from '../../../src/domain/pod/types.js';

function setup(podSc: PodSecurityContext | undefined, sc: SecurityContext | undefined): { pod: Pod; container: Container } {
  const container: Container = { name: 'c', image: 'x:1', ...(sc ? { securityContext: sc } : {}) };
  return { pod: { metadata: { name: 'p', uid: 'u' }, spec: { containers: [container], ...(podSc ? { securityContext: podSc } : {}) } }, container };
}

describe('verifyRunAsNonRoot', () => {
  it.each<[string, PodSecurityContext | undefined, SecurityContext | undefined, ImageUser, boolean]>([
    ['no policy, root image', undefined, undefined, {}, true],
    ['policy with a non-root runAsUser', undefined, { runAsNonRoot: true, runAsUser: 1000 }, {}, true],
    ['policy with runAsUser 0', undefined, { runAsNonRoot: true, runAsUser: 0 }, { uid: 1000 }, false],
    ['pod-level policy, image uid 1000', { runAsNonRoot: true }, undefined, { uid: 1000 }, true],
    ['pod-level policy, image uid 0', { runAsNonRoot: true }, undefined, { uid: 0 }, false],
    ['policy, image without a user (root)', undefined, { runAsNonRoot: true }, {}, false],
    ['policy, image with a user name', undefined, { runAsNonRoot: true }, { username: 'app' }, false],
    ['container allows root over the pod policy', { runAsNonRoot: true }, { runAsNonRoot: false }, { uid: 0 }, true],
    ['pod runAsUser satisfies a container policy', { runAsUser: 1000 }, { runAsNonRoot: true }, {}, true],
  ])('%s → allowed=%s', (_, podSc, sc, image, allowed) => {
    const { pod, container } = setup(podSc, sc);
    const run = () => verifyRunAsNonRoot(pod, container, image);
    if (allowed) expect(run).not.toThrow();
    else expect(run).toThrow(expect.objectContaining({ code: 'KLT_ERR_CONTAINER_CONFIG' }));
  });
});

const policy = { runtimeDefault: false, profileRoot: '/var/lib/kubelet/seccomp' };

function containerContext(podSc: PodSecurityContext | undefined, sc: SecurityContext | undefined, annotations?: Record<string, string>) {
  const { pod, container } = setup(podSc, sc);
  if (annotations) pod.metadata.annotations = annotations;
  return containerSecurityContext(pod, container, policy);
}

// Go: securitycontext.AddNoNewPrivileges. The API server refuses allowPrivilegeEscalation: false
// with privileged or CAP_SYS_ADMIN, so the kubelet looks at nothing else.
describe('no_new_privs', () => {
  it.each<[string, SecurityContext | undefined, boolean]>([
    ['no security context', undefined, false],
    ['allowPrivilegeEscalation unset', { runAsUser: 1000 }, false],
    ['allowPrivilegeEscalation: true', { allowPrivilegeEscalation: true }, false],
    ['allowPrivilegeEscalation: false', { allowPrivilegeEscalation: false }, true],
  ])('%s → %s', (_, sc, expected) => {
    expect(containerContext(undefined, sc).no_new_privs).toBe(expected);
  });
});

// Go: ConvertToRuntimeMaskedPaths / ConvertToRuntimeReadonlyPaths, for every container.
describe('masked and read-only paths', () => {
  const defaults = { masked_paths: [...DEFAULT_MASKED_PATHS], readonly_paths: [...DEFAULT_READONLY_PATHS] };
  it.each<[string, SecurityContext | undefined, { masked_paths: string[]; readonly_paths: string[] }]>([
    ['no security context', undefined, defaults],
    ['procMount: Default', { procMount: 'Default' }, defaults],
    ['procMount: Unmasked', { procMount: 'Unmasked' }, { masked_paths: [], readonly_paths: [] }],
    ['privileged (the runtime clears them)', { privileged: true }, defaults],
  ])('%s', (_, sc, expected) => {
    const out = containerContext(undefined, sc);
    expect({ masked_paths: out.masked_paths, readonly_paths: out.readonly_paths }).toEqual(expected);
  });

  it('are Go v1.26\'s lists', () => {
    expect(DEFAULT_MASKED_PATHS).toEqual(['/proc/acpi', '/proc/kcore', '/proc/keys', '/proc/latency_stats', '/proc/timer_list', '/proc/timer_stats', '/proc/sched_debug', '/proc/scsi', '/sys/firmware']);
    expect(DEFAULT_READONLY_PATHS).toEqual(['/proc/asound', '/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger']);
  });
});

// Go: DetermineEffectiveSecurityContext takes the container's seLinuxOptions whole over the pod's.
describe('SELinux options', () => {
  const label = (o: { user?: string; role?: string; type?: string; level?: string }) => ({ user: '', role: '', type: '', level: '', ...o });
  it.each<[string, PodSecurityContext | undefined, SecurityContext | undefined, ReturnType<typeof label> | undefined]>([
    ['none', undefined, undefined, undefined],
    ['the pod\'s', { seLinuxOptions: { level: 's0:c1,c2' } }, undefined, label({ level: 's0:c1,c2' })],
    ['the container\'s', undefined, { seLinuxOptions: { type: 'spc_t' } }, label({ type: 'spc_t' })],
    ['the container\'s whole, not merged with the pod\'s', { seLinuxOptions: { level: 's0:c1,c2', user: 'system_u' } }, { seLinuxOptions: { type: 'spc_t' } }, label({ type: 'spc_t' })],
    ['the pod\'s when the container has a context without them', { seLinuxOptions: { role: 'system_r' } }, { runAsUser: 1 }, label({ role: 'system_r' })],
  ])('container: %s', (_, podSc, sc, expected) => {
    expect(containerContext(podSc, sc).selinux_options).toEqual(expected);
  });

  it('the sandbox gets the pod\'s only', () => {
    const { pod } = setup({ seLinuxOptions: { level: 's0:c5,c6' } }, { seLinuxOptions: { type: 'spc_t' } });
    expect(sandboxSecurityContext(pod, policy).selinux_options).toEqual(label({ level: 's0:c5,c6' }));
    expect(sandboxSecurityContext(setup(undefined, undefined).pod, policy).selinux_options).toBeUndefined();
  });
});

// Go v1.26 sends the annotation as apparmor_profile; v1.30+ also as the apparmor SecurityProfile.
describe('AppArmor profile', () => {
  const key = 'container.apparmor.security.beta.kubernetes.io/c';
  it.each<[string, Record<string, string> | undefined, object]>([
    ['no annotation', undefined, {}],
    ['another container\'s', { 'container.apparmor.security.beta.kubernetes.io/other': 'runtime/default' }, {}],
    ['runtime/default', { [key]: 'runtime/default' }, { apparmor: { profile_type: 'RuntimeDefault' }, apparmor_profile: 'runtime/default' }],
    ['unconfined', { [key]: 'unconfined' }, { apparmor: { profile_type: 'Unconfined' }, apparmor_profile: 'unconfined' }],
    ['localhost/<name>', { [key]: 'localhost/k8s-deny-write' }, { apparmor: { profile_type: 'Localhost', localhost_ref: 'k8s-deny-write' }, apparmor_profile: 'localhost/k8s-deny-write' }],
    ['a value of no known form', { [key]: 'enforce' }, {}],
  ])('%s', (_, annotations, expected) => {
    const out = containerContext(undefined, undefined, annotations);
    expect({ ...(out.apparmor ? { apparmor: out.apparmor } : {}), ...(out.apparmor_profile !== undefined ? { apparmor_profile: out.apparmor_profile } : {}) }).toEqual(expected);
  });
});
