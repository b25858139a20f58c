import { describe, expect, it } from 'vitest';
import { parseResolvConf, podDnsConfig, podHostname, type DnsContext } from '../../../src/domain/runtime/dns.js';
import type { Pod, PodSpec } from '../../../src/domain/pod/types.js';

const hostResolvConf = `# generated
nameserver 192.168.1.1
nameserver 192.168.1.2
search corp.example. lab.example
search home.example .
options ndots:2 timeout:1
options ndots:3
`;

function pod(spec: Partial<PodSpec>, name = 'web'): Pod {
  return { metadata: { name, namespace: 'shop', uid: 'u' }, spec: { containers: [], ...spec } };
}

const ctx: DnsContext = { clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local', hostDns: parseResolvConf(hostResolvConf), nodeIPs: ['192.168.1.50'] };

describe('parseResolvConf', () => {
  it('keeps every nameserver, the last search line and merged options', () => {
    expect(parseResolvConf(hostResolvConf)).toEqual({ servers: ['192.168.1.1', '192.168.1.2'], searches: ['home.example'], options: ['ndots:3', 'timeout:1'] });
  });
});

describe('podDnsConfig', () => {
  it('ClusterFirst uses cluster DNS with the cluster search path before the host one', () => {
    expect(podDnsConfig(pod({}), ctx)).toEqual({
      servers: ['10.96.0.10'],
      searches: ['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'home.example'],
      options: ['ndots:5'],
    });
  });

  it.each<[string, Partial<PodSpec>]>([
    ['Default', { dnsPolicy: 'Default' }],
    ['ClusterFirst on the host network', { hostNetwork: true }],
  ])('%s uses the host resolv.conf', (_, spec) => {
    expect(podDnsConfig(pod(spec), ctx)).toEqual(ctx.hostDns);
  });

  it('ClusterFirstWithHostNet uses cluster DNS even on the host network', () => {
    expect(podDnsConfig(pod({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' }), ctx).servers).toEqual(['10.96.0.10']);
  });

  it('ClusterFirst falls back to the host without cluster DNS', () => {
    expect(podDnsConfig(pod({}), { ...ctx, clusterDNS: [] })).toEqual(ctx.hostDns);
  });

  it('None starts empty and takes the pod dnsConfig', () => {
    const spec: Partial<PodSpec> = { dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1'], searches: ['a.example'], options: [{ name: 'ndots', value: '1' }, { name: 'edns0' }] } };
    expect(podDnsConfig(pod(spec), ctx)).toEqual({ servers: ['1.1.1.1'], searches: ['a.example'], options: ['ndots:1', 'edns0'] });
  });

  it('appends the pod dnsConfig, overriding options by name and dropping duplicates', () => {
    const spec: Partial<PodSpec> = { dnsConfig: { nameservers: ['10.96.0.10', '8.8.8.8'], options: [{ name: 'ndots', value: '2' }] } };
    expect(podDnsConfig(pod(spec), ctx)).toMatchObject({ servers: ['10.96.0.10', '8.8.8.8'], options: ['ndots:2'] });
  });

  it('keeps at most three nameservers', () => {
    const spec: Partial<PodSpec> = { dnsPolicy: 'None', dnsConfig: { nameservers: ['1.0.0.1', '1.0.0.2', '1.0.0.3', '1.0.0.4'] } };
    expect(podDnsConfig(pod(spec), ctx).servers).toEqual(['1.0.0.1', '1.0.0.2', '1.0.0.3']);
  });

  it('points at the local resolver when --resolv-conf is empty', () => {
    expect(podDnsConfig(pod({ dnsPolicy: 'Default' }), { clusterDNS: [], clusterDomain: '', nodeIPs: ['fd00::1'] })).toEqual({ servers: ['::1'], searches: ['.'], options: [] });
  });
});

describe('podHostname', () => {
  it('is the pod name, or spec.hostname, truncated to 63 characters without a trailing dash', () => {
    expect(podHostname(pod({}), 'cluster.local')).toBe('web');
    expect(podHostname(pod({ hostname: 'custom' }), 'cluster.local')).toBe('custom');
    expect(podHostname(pod({}, `${'a'.repeat(62)}-bcd`), '')).toBe('a'.repeat(62));
  });

  it('is unset on the host network', () => {
    expect(podHostname(pod({ hostNetwork: true }), 'cluster.local')).toBeUndefined();
  });

  it('is the FQDN with setHostnameAsFQDN and a subdomain', () => {
    expect(podHostname(pod({ subdomain: 'api', setHostnameAsFQDN: true }), 'cluster.local')).toBe('web.api.shop.svc.cluster.local');
  });

  it('is spec.hostnameOverride as given, with no domain even beside a subdomain (HostnameOverride, v1.35)', () => {
    expect(podHostname(pod({ hostnameOverride: 'db-0.example.internal', hostname: 'custom', subdomain: 'api' }), 'cluster.local')).toBe('db-0.example.internal');
  });

  it('refuses a hostnameOverride that is no DNS subdomain, as Go does', () => {
    expect(() => podHostname(pod({ hostnameOverride: 'Not_Valid' }), 'cluster.local')).toThrow(expect.objectContaining({
      code: 'KLT_ERR_POD_SPEC_INVALID', message: 'pod HostnameOverride "Not_Valid" is not a valid DNS subdomain',
    }));
  });

  it('rejects an FQDN longer than 64 characters', () => {
    expect(() => podHostname(pod({ hostname: 'h'.repeat(40), subdomain: 'api', setHostnameAsFQDN: true }), 'cluster.local')).toThrow(expect.objectContaining({ code: 'KLT_ERR_POD_SPEC_INVALID' }));
  });
});
