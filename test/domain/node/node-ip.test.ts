import { describe, expect, it } from 'vitest';
import { formatIp, parseIpSloppy } from '../../../src/domain/net/ip-address.js';
import { nodeHostIps, parseNodeIpArgument, resolveNodeIps, validateNodeIp } from '../../../src/domain/node/node-ip.js';
import { KubeletError } from '../../../src/domain/errors.js';

const HOST = ['192.0.2.10', 'fd00::2', 'fe80::fc:ff:fe00:1'];

function errorOf(fn: () => unknown): KubeletError {
  try {
    fn();
  } catch (err) {
    if (err instanceof KubeletError) return err;
    throw err;
  }
  throw new Error('expected a KubeletError');
}

describe('parseNodeIpArgument', () => {
  it.each([
    ['', '', [], []],
    ['192.0.2.10', '', ['192.0.2.10'], []],
    [' 192.0.2.10 , fd00::2 ', '', ['192.0.2.10', 'fd00::2'], []],
    ['fd00::2,192.0.2.10', 'external', ['fd00::2', '192.0.2.10'], []],
    ['192.0.2.10,bogus', '', ['192.0.2.10'], ['bogus']],
    ['bogus', '', [], ['bogus']],
    ['0.0.0.0', '', ['0.0.0.0'], []],
  ])('parses %j (cloud provider %j)', (arg, cloud, ips, invalid) => {
    const parsed = parseNodeIpArgument(arg, cloud);
    expect(parsed.ips.map(formatIp)).toEqual(ips);
    expect(parsed.invalid).toEqual(invalid);
  });

  it.each([
    ['192.0.2.10,192.0.2.11', '', 'bad --node-ip "192.0.2.10,192.0.2.11": must contain either a single IP or a dual-stack pair of IPs'],
    ['fd00::2,fd00::3', '', 'bad --node-ip "fd00::2,fd00::3": must contain either a single IP or a dual-stack pair of IPs'],
    ['192.0.2.10,fd00::2,192.0.2.11', '', 'bad --node-ip "192.0.2.10,fd00::2,192.0.2.11": must contain either a single IP or a dual-stack pair of IPs'],
    ['192.0.2.10,fd00::2', 'gce', 'bad --node-ip "192.0.2.10,fd00::2": dual-stack not supported in this configuration'],
    ['0.0.0.0,fd00::2', '', `bad --node-ip "0.0.0.0,fd00::2": dual-stack node IP cannot include '0.0.0.0' or '::'`],
    ['192.0.2.10,::', '', `bad --node-ip "192.0.2.10,::": dual-stack node IP cannot include '0.0.0.0' or '::'`],
  ])('rejects %j (cloud provider %j) with Go\'s message', (arg, cloud, message) => {
    const err = errorOf(() => parseNodeIpArgument(arg, cloud));
    expect(err.code).toBe('KLT_ERR_NODE_IP_INVALID');
    expect(err.message).toBe(message);
  });
});

describe('validateNodeIp', () => {
  it.each([
    ['127.0.0.1', "nodeIP can't be loopback address"],
    ['::1', "nodeIP can't be loopback address"],
    ['239.0.0.254', "nodeIP can't be a multicast address"],
    ['169.254.0.0', "nodeIP can't be a link-local unicast address"],
    ['fe80::fc:ff:fe00:1', "nodeIP can't be a link-local unicast address"],
    ['0.0.0.0', "nodeIP can't be an all zeros address"],
    ['114.114.114.114', 'node IP: "114.114.114.114" not found in the host\'s network interfaces'],
    ['FD00:0::3', 'node IP: "fd00::3" not found in the host\'s network interfaces'],
    ['192.0.2.10', null],
    ['::ffff:192.0.2.10', null],
    ['fd00:0:0::2', null],
  ])('answers %s with Go\'s message (%j)', (text, expected) => {
    const ip = parseIpSloppy(text);
    if (!ip) throw new Error('bad fixture');
    expect(validateNodeIp(ip, HOST)).toBe(expected);
  });
});

describe('resolveNodeIps', () => {
  it('returns no node IP for an empty --node-ip', () => {
    expect(resolveNodeIps({ nodeIp: '', cloudProvider: '', hostAddresses: HOST })).toEqual({ nodeIps: [], unspecifiedFamily: null, invalid: [] });
  });

  it('treats a lone unspecified address as "auto-detect, this family" and does not validate it', () => {
    expect(resolveNodeIps({ nodeIp: '::', cloudProvider: '', hostAddresses: [] })).toMatchObject({ nodeIps: [], unspecifiedFamily: 6 });
    expect(resolveNodeIps({ nodeIp: '0.0.0.0', cloudProvider: '', hostAddresses: [] })).toMatchObject({ nodeIps: [], unspecifiedFamily: 4 });
  });

  it('accepts a dual-stack pair assigned to the host, in Go text form, primary first', () => {
    expect(resolveNodeIps({ nodeIp: 'fd00:0::2, 192.0.2.10', cloudProvider: '', hostAddresses: HOST }).nodeIps).toEqual(['fd00::2', '192.0.2.10']);
  });

  it('names the secondary IP when only it is not on the host', () => {
    const err = errorOf(() => resolveNodeIps({ nodeIp: '192.0.2.10,fd00::9', cloudProvider: '', hostAddresses: HOST }));
    expect(err.code).toBe('KLT_ERR_NODE_IP_INVALID');
    expect(err.message).toBe('failed to validate secondaryNodeIP: node IP: "fd00::9" not found in the host\'s network interfaces');
  });

  it('fails a loopback node IP', () => {
    const err = errorOf(() => resolveNodeIps({ nodeIp: '127.0.0.1', cloudProvider: '', hostAddresses: HOST }));
    expect(err.message).toBe("failed to validate nodeIP: nodeIP can't be loopback address");
  });

  it('does not check host interfaces when an external cloud provider owns node addresses', () => {
    expect(resolveNodeIps({ nodeIp: '198.51.100.7', cloudProvider: 'external', hostAddresses: HOST }).nodeIps).toEqual(['198.51.100.7']);
  });

  it('keeps unparseable entries aside for the caller to log', () => {
    expect(resolveNodeIps({ nodeIp: '192.0.2.10,nope', cloudProvider: '', hostAddresses: HOST })).toEqual({
      nodeIps: ['192.0.2.10'], unspecifiedFamily: null, invalid: ['nope'],
    });
  });
});

describe('nodeHostIps', () => {
  const host = [{ address: '::1', family: 6 }, { address: '10.1.2.3', family: 4 }, { address: '192.168.0.9', family: 4 }];

  it('is --node-ip when given, whatever the host has', () => {
    expect(nodeHostIps(['10.9.9.9', 'fd00::9'], host)).toEqual(['10.9.9.9', 'fd00::9']);
  });

  it('is the host\'s first IPv4 address without --node-ip, so a pod\'s status.hostIP is never unknown', () => {
    expect(nodeHostIps([], host)).toEqual(['10.1.2.3']);
  });

  it('falls back to loopback on a host with no IPv4 address', () => {
    expect(nodeHostIps([], [{ address: '::1', family: 6 }])).toEqual(['127.0.0.1']);
  });
});
