import { describe, expect, it } from 'vitest';
import { admitSysctls, sysctlAllowlist, toDottedSysctl } from '../../../src/domain/pod/sysctls.js';
import type { Pod } from '../../../src/domain/pod/types.js';

const pod = (sysctls: { name: string; value: string }[], spec: Partial<Pod['spec']> = {}): Pod => ({
  metadata: { name: 'p', namespace: 'ns', uid: 'u' },
  spec: { containers: [{ name: 'c', image: 'busybox' }], securityContext: { sysctls }, ...spec },
});

describe('the sysctl admit handler', () => {
  const safeOnly = sysctlAllowlist([]);

  it('admits a pod without sysctls and one with safe sysctls, dots or slashes', () => {
    expect(admitSysctls({ ...pod([]), spec: { containers: [] } }, safeOnly)).toEqual({ admit: true });
    expect(admitSysctls(pod([{ name: 'kernel.shm_rmid_forced', value: '1' }, { name: 'net/ipv4/ip_local_port_range', value: '1024 65535' }]), safeOnly)).toEqual({ admit: true });
  });

  it('refuses an unsafe sysctl the node does not allow, with Go\'s reason and message', () => {
    expect(admitSysctls(pod([{ name: 'kernel.shm_rmid_forced', value: '0' }, { name: 'kernel.msgmax', value: '10000000000' }]), safeOnly))
      .toEqual({ admit: false, reason: 'SysctlForbidden', message: 'forbidden sysctl: "kernel.msgmax" not allowlisted' });
  });

  it('admits the unsafe sysctls allowedUnsafeSysctls names, by name or by prefix', () => {
    const list = sysctlAllowlist(['kernel.msg*', 'net.core.somaxconn']);
    expect(admitSysctls(pod([{ name: 'kernel.msgmax', value: '1' }, { name: 'net.core.somaxconn', value: '1024' }]), list)).toEqual({ admit: true });
    expect(admitSysctls(pod([{ name: 'net.core.rmem_max', value: '1' }]), list)).toMatchObject({ admit: false, message: 'forbidden sysctl: "net.core.rmem_max" not allowlisted' });
  });

  it('refuses a net sysctl for a host-network pod and an IPC one for a host-IPC pod', () => {
    expect(admitSysctls(pod([{ name: 'net.ipv4.tcp_syncookies', value: '1' }], { hostNetwork: true }), safeOnly))
      .toEqual({ admit: false, reason: 'SysctlForbidden', message: 'forbidden sysctl: "net.ipv4.tcp_syncookies" not allowed with host net enabled' });
    expect(admitSysctls(pod([{ name: 'kernel.shm_rmid_forced', value: '1' }], { hostIPC: true }), safeOnly))
      .toMatchObject({ admit: false, message: 'forbidden sysctl: "kernel.shm_rmid_forced" not allowed with host ipc enabled' });
  });

  it('refuses to build an allowlist with a sysctl the kernel does not namespace', () => {
    expect(() => sysctlAllowlist(['vm.swappiness'])).toThrow(expect.objectContaining({ code: 'KLT_ERR_CONFIG_INVALID' }));
  });

  it('swaps the separators of a name whose first separator is a slash, as Go does', () => {
    expect(toDottedSysctl('net/ipv4/conf/eno2.100/rp_filter')).toBe('net.ipv4.conf.eno2/100.rp_filter');
    expect(toDottedSysctl('net.ipv4.conf.eno2/100.rp_filter')).toBe('net.ipv4.conf.eno2/100.rp_filter');
  });
});
