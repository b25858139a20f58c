import { describe, expect, it } from 'vitest';
import {
  formatIp, ipEqual, isIPv4, isLinkLocalUnicast, isLoopback, isMulticast, isUnspecified, parseIp, parseIpSloppy,
} from '../../../src/domain/net/ip-address.js';
import { parseFlagValue } from '../../../src/domain/config/flag-values.js';

const parse = (text: string) => {
  const ip = parseIpSloppy(text);
  if (!ip) throw new Error(`did not parse: ${text}`);
  return ip;
};

describe('parseIpSloppy', () => {
  it.each([
    ['10.0.0.1', '10.0.0.1'],
    ['010.001.000.009', '10.1.0.9'], // sloppy: leading zeros are decimal
    ['::', '::'],
    ['::1', '::1'],
    ['2001:DB8::1', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'], // the first of two equal zero runs is compressed
    ['fe80::1:2', 'fe80::1:2'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'], // "::" may stand for one group; a lone zero group is not compressed
    ['::ffff:192.0.2.1', '192.0.2.1'], // IPv4-mapped is IPv4, as in Go
    ['64:ff9b::192.0.2.1', '64:ff9b::c000:201'],
  ])('parses %s and prints it as Go does (%s)', (text, printed) => {
    expect(formatIp(parse(text))).toBe(printed);
  });

  it.each(['', '1.2.3', '1.2.3.4.5', '256.0.0.1', '1.2.3.-4', 'a.b.c.d', '1::2::3', '12345::', ':1::', 'fe80::1%eth0', '10.0.0.0/8', '1:2:3:4:5:6:7:8:9', ' 10.0.0.1'])(
    'rejects %j',
    (text) => {
      expect(parseIpSloppy(text)).toBeNull();
    },
  );
});

describe('address classes', () => {
  it.each([
    ['127.0.0.1', { loopback: true }],
    ['127.255.0.9', { loopback: true }],
    ['::1', { loopback: true }],
    ['224.0.0.1', { multicast: true }],
    ['239.0.0.254', { multicast: true }],
    ['ff02::1', { multicast: true }],
    ['169.254.0.0', { linkLocal: true }],
    ['fe80::1', { linkLocal: true }],
    ['febf::1', { linkLocal: true }],
    ['0.0.0.0', { unspecified: true }],
    ['::', { unspecified: true }],
    ['::ffff:0.0.0.0', { unspecified: true }],
    ['192.0.2.1', {}],
    ['fec0::1', {}],
    ['2001:db8::1', {}],
  ])('classifies %s', (text, expected) => {
    const ip = parse(text);
    expect({
      loopback: isLoopback(ip),
      multicast: isMulticast(ip),
      linkLocal: isLinkLocalUnicast(ip),
      unspecified: isUnspecified(ip),
    }).toEqual({ loopback: false, multicast: false, linkLocal: false, unspecified: false, ...expected });
  });

  it('treats IPv4 and its IPv4-mapped IPv6 spelling as the same IPv4 address', () => {
    expect(ipEqual(parse('10.1.2.3'), parse('::ffff:10.1.2.3'))).toBe(true);
    expect(isIPv4(parse('::ffff:10.1.2.3'))).toBe(true);
    expect(isIPv4(parse('::10.1.2.3'))).toBe(false);
  });
});

describe('parseIp (Go net.ParseIP, Go 1.17 and later)', () => {
  it.each([
    ['10.0.0.1', '10.0.0.1'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['::', '::'],
    ['::1', '::1'],
    ['fe80::1', 'fe80::1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
    ['::ffff:10.0.0.1', '10.0.0.1'],
    ['::ffff:a00:1', '10.0.0.1'],
    ['64:ff9b::10.0.0.1', '64:ff9b::a00:1'],
  ])('reads %s as %s', (text, canonical) => {
    const ip = parseIp(text);
    expect(ip).not.toBeNull();
    expect(formatIp(ip!)).toBe(canonical);
  });

  it.each([
    '', '0010.1.1.1', '010.1.1.1', '10.01.1.1', '256.0.0.1', '1.2.3', '1.2.3.4.5', '1.2.3.', '-1.2.3.4', ' 1.2.3.4',
    '10.0.0.1/8', 'fe80::1%eth0', '1:2:3:4:5:6:7:8:9', '1::2::3', '12345::', ':::', '1:2:3:4:5:6:7::8', 'g::1',
    '::ffff:010.0.0.1', 'localhost',
  ])('rejects %j', (text) => {
    expect(parseIp(text)).toBeNull();
  });

  it('counts an IPv4-mapped IPv6 address as IPv4, as To4() does', () => {
    expect(isIPv4(parseIp('::ffff:192.168.0.1')!)).toBe(true);
    expect(isIPv4(parseIp('2001:db8::1')!)).toBe(false);
  });
});

describe('parseIpSloppy against parseIp', () => {
  it.each([
    ['0010.1.1.1', '10.1.1.1'],
    ['010.001.000.1', '10.1.0.1'],
    ['::ffff:010.0.0.1', '10.0.0.1'],
  ])('reads octets with leading zeros as decimal: %s is %s', (text, canonical) => {
    expect(formatIp(parseIpSloppy(text)!)).toBe(canonical);
  });

  it.each(['', '256.0.0.1', '0256.0.0.1', 'fe80::1%eth0', '1.2.3'])('still rejects %j', (text) => {
    expect(parseIpSloppy(text)).toBeNull();
  });

  it('is what an IP flag accepts, as component-base IPVar does: 0010.1.1.1 is an address (the old flag check refused it)', () => {
    expect(parseFlagValue('ip', '0010.1.1.1', undefined)).toBe('0010.1.1.1');
    expect(() => parseFlagValue('ip', '10.0.0.256', undefined)).toThrow('"10.0.0.256" is not a valid IP address');
  });
});
