import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OsHostAddresses } from '../../../src/adapters/host/host-addresses.js';
import { OsHostname } from '../../../src/adapters/host/hostname.js';

describe('OsHostAddresses', () => {
  it('lists non-loopback addresses with their interface and family, without IPv6 zones', () => {
    const source = () => ({
      lo: [
        { address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4' as const, mac: '00:00:00:00:00:00', internal: true, cidr: '127.0.0.1/8' },
      ],
      eth0: [
        { address: '192.0.2.2', netmask: '255.255.255.0', family: 'IPv4' as const, mac: '02:00:00:00:00:01', internal: false, cidr: '192.0.2.2/24' },
        { address: 'fe80::1%eth0', netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6' as const, mac: '02:00:00:00:00:01', internal: false, cidr: 'fe80::1/64', scopeid: 2 },
      ],
    });
    expect(new OsHostAddresses(source).addresses()).toEqual([
      { interfaceName: 'eth0', address: '192.0.2.2', family: 4 },
      { interfaceName: 'eth0', address: 'fe80::1', family: 6 },
    ]);
  });

  it('never lists loopback addresses of this machine', () => {
    const addresses = new OsHostAddresses().addresses().map((a) => a.address);
    expect(addresses).not.toContain('127.0.0.1');
    expect(addresses).not.toContain('::1');
  });
});

describe('OsHostname', () => {
  it('returns the kernel hostname as is (what Go reads from /proc/sys/kernel/hostname)', () => {
    expect(new OsHostname().hostname()).toBe(readFileSync('/proc/sys/kernel/hostname', 'utf8').replace(/\n$/, ''));
  });
});
