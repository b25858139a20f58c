import { describe, expect, it } from 'vitest';
import { localhostProfilePath, seccompProfileFor, seccompProfileRoot, type SeccompPolicy } from '../../../src/domain/runtime/seccomp.js';
import type { CriSecurityProfile } from '../../../src/domain/runtime/cri-config.js';
import type { Container, Pod, SeccompProfile } from '../../../src/domain/pod/types.js';

const root = seccompProfileRoot('/var/lib/kubelet');
const off: SeccompPolicy = { runtimeDefault: false, profileRoot: root };
const on: SeccompPolicy = { runtimeDefault: true, profileRoot: root };

function setup(podProfile?: SeccompProfile, containerProfile?: SeccompProfile, privileged?: boolean): { pod: Pod; container: Container } {
  const container: Container = {
    name: 'c', image: 'x:1',
    ...(containerProfile || privileged ? { securityContext: { ...(containerProfile ? { seccompProfile: containerProfile } : {}), ...(privileged ? { privileged } : {}) } } : {}),
  };
  return { pod: { metadata: { name: 'p', uid: 'u' }, spec: { containers: [container], ...(podProfile ? { securityContext: { seccompProfile: podProfile } } : {}) } }, container };
}

const runtimeDefault: CriSecurityProfile = { profile_type: 'RuntimeDefault' };
const unconfined: CriSecurityProfile = { profile_type: 'Unconfined' };

describe('seccompProfileRoot', () => {
  it('is the seccomp directory under --root-dir', () => {
    expect(root).toBe('/var/lib/kubelet/seccomp');
    expect(seccompProfileRoot('/srv/kts/')).toBe('/srv/kts/seccomp');
  });
});

describe('seccompProfileFor (the container, as getSeccompProfile with its container name)', () => {
  it.each<[string, SeccompProfile | undefined, SeccompProfile | undefined, SeccompPolicy, CriSecurityProfile]>([
    ['nothing asked, seccompDefault off', undefined, undefined, off, unconfined],
    ['nothing asked, seccompDefault on', undefined, undefined, on, runtimeDefault],
    ['pod RuntimeDefault', { type: 'RuntimeDefault' }, undefined, off, runtimeDefault],
    ['pod Unconfined wins over seccompDefault', { type: 'Unconfined' }, undefined, on, unconfined],
    ['container RuntimeDefault over pod Unconfined', { type: 'Unconfined' }, { type: 'RuntimeDefault' }, off, runtimeDefault],
    ['container Unconfined over pod RuntimeDefault', { type: 'RuntimeDefault' }, { type: 'Unconfined' }, on, unconfined],
    ['container Localhost: a path under the root', undefined, { type: 'Localhost', localhostProfile: 'profiles/audit.json' }, off,
      { profile_type: 'Localhost', localhost_ref: '/var/lib/kubelet/seccomp/profiles/audit.json' }],
    ['pod Localhost, cleaned as filepath.Join does', { type: 'Localhost', localhostProfile: './a//b.json' }, undefined, off,
      { profile_type: 'Localhost', localhost_ref: '/var/lib/kubelet/seccomp/a/b.json' }],
    ['an absolute Localhost profile still lands under the root', { type: 'Localhost', localhostProfile: '/etc/x.json' }, undefined, off,
      { profile_type: 'Localhost', localhost_ref: '/var/lib/kubelet/seccomp/etc/x.json' }],
  ])('%s', (_, podProfile, containerProfile, policy, expected) => {
    const { pod, container } = setup(podProfile, containerProfile);
    expect(seccompProfileFor(pod, container, policy)).toEqual(expected);
  });

  it('sends a privileged container the same profile: the runtime, not the kubelet, ignores it for privileged', () => {
    const { pod, container } = setup({ type: 'RuntimeDefault' }, undefined, true);
    expect(seccompProfileFor(pod, container, off)).toEqual(runtimeDefault);
  });
});

describe('seccompProfileFor: what validation refuses fails the config here too, never runs unconfined or outside the root', () => {
  it.each<[string, SeccompProfile | undefined, SeccompProfile | undefined, RegExp]>([
    // Go's fieldSeccompProfile runs these two unconfined.
    ['Localhost without a profile name', undefined, { type: 'Localhost' }, /names no localhostProfile/],
    ['Localhost with an empty profile name', { type: 'Localhost', localhostProfile: '' }, undefined, /names no localhostProfile/],
    ['an unknown type', { type: 'RuntimeDefualt' as 'RuntimeDefault' }, undefined, /unknown seccomp profile type "RuntimeDefualt"/],
    // Go's filepath.Join gives /etc/shadow here.
    ['a Localhost profile climbing out of the root', undefined, { type: 'Localhost', localhostProfile: '../../../etc/shadow' }, /outside the profile root "\/var\/lib\/kubelet\/seccomp"/],
    ['a Localhost profile naming the root itself', { type: 'Localhost', localhostProfile: 'a/..' }, undefined, /outside the profile root/],
  ])('%s', (_, podProfile, containerProfile, message) => {
    const { pod, container } = setup(podProfile, containerProfile);
    expect(() => seccompProfileFor(pod, container, on)).toThrow(expect.objectContaining({ code: 'KLT_ERR_CONTAINER_CONFIG', message: expect.stringMatching(message) }));
  });

  it('confines a profile path that climbs and comes back, and one under a root written with a trailing slash', () => {
    expect(localhostProfilePath('/var/lib/kubelet/seccomp/', 'a/../b.json')).toBe('/var/lib/kubelet/seccomp/b.json');
    expect(() => localhostProfilePath('/var/lib/kubelet/seccomp', '../seccomp-other/x.json')).toThrow(/outside the profile root/);
  });
});

describe('seccompProfileFor (the sandbox, with no container)', () => {
  it.each<[string, SeccompProfile | undefined, SeccompProfile | undefined, SeccompPolicy, CriSecurityProfile]>([
    ['nothing asked, seccompDefault off', undefined, undefined, off, unconfined],
    ['nothing asked, seccompDefault on', undefined, undefined, on, runtimeDefault],
    ['the pod level only: a container\'s profile does not reach the sandbox', undefined, { type: 'RuntimeDefault' }, off, unconfined],
    ['pod Localhost', { type: 'Localhost', localhostProfile: 'audit.json' }, { type: 'Unconfined' }, off,
      { profile_type: 'Localhost', localhost_ref: '/var/lib/kubelet/seccomp/audit.json' }],
  ])('%s', (_, podProfile, containerProfile, policy, expected) => {
    const { pod } = setup(podProfile, containerProfile);
    expect(seccompProfileFor(pod, undefined, policy)).toEqual(expected);
  });
});
