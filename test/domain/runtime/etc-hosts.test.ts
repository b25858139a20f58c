import { describe, expect, it } from 'vitest';
import { KubeletBug } from '../../../src/domain/errors.js';
import type { Container, Pod, PodSpec } from '../../../src/domain/pod/types.js';
import {
  etcHostsMount,
  managedHostsFileContent,
  nodeHostsFileContent,
  podHostsFileContent,
  shouldMountHostsFile,
  shouldMountHostsFileFor,
} from '../../../src/domain/runtime/etc-hosts.js';
import { podHostnameAndDomain } from '../../../src/domain/runtime/pod-hostname.js';

function pod(spec: Partial<PodSpec> = {}, name = 'web-0'): Pod {
  return { metadata: { name, namespace: 'shop', uid: 'u1' }, spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec } };
}

const ctx = { clusterDomain: 'cluster.local' };

const loopback = `# Kubernetes-managed hosts file.
127.0.0.1\tlocalhost
::1\tlocalhost ip6-localhost ip6-loopback
fe00::0\tip6-localnet
fe00::0\tip6-mcastprefix
fe00::1\tip6-allnodes
fe00::2\tip6-allrouters
`;

describe('podHostsFileContent', () => {
  it('names the pod on its one IPv4 address', () => {
    expect(podHostsFileContent(pod(), { ...ctx, podIPs: ['10.244.1.7'] })).toBe(`${loopback}10.244.1.7\tweb-0\n`);
  });

  it('writes one line per address of a dual-stack pod, in the order given', () => {
    expect(podHostsFileContent(pod(), { ...ctx, podIPs: ['10.244.1.7', 'fd00:10:244:1::7'] })).toBe(
      `${loopback}10.244.1.7\tweb-0\nfd00:10:244:1::7\tweb-0\n`,
    );
  });

  it('puts the FQDN before the short name when the pod has a subdomain, and spec.hostname wins over the name', () => {
    const p = pod({ hostname: 'db', subdomain: 'backend' });
    expect(podHostsFileContent(p, { ...ctx, podIPs: ['10.244.1.7'] })).toBe(`${loopback}10.244.1.7\tdb.backend.shop.svc.cluster.local\tdb\n`);
  });

  it('names the pod by its hostnameOverride alone, without the subdomain\'s FQDN', () => {
    const p = pod({ hostnameOverride: 'db.example.internal', hostname: 'db', subdomain: 'backend' });
    expect(podHostsFileContent(p, { ...ctx, podIPs: ['10.244.1.7'] })).toBe(`${loopback}10.244.1.7\tdb.example.internal\n`);
  });

  it('appends the HostAliases section, one line per alias with its names tab-separated', () => {
    const p = pod({ hostAliases: [{ ip: '127.0.0.1', hostnames: ['foo.local', 'bar.local'] }, { ip: '10.1.2.3', hostnames: ['foo.remote'] }] });
    expect(podHostsFileContent(p, { ...ctx, podIPs: ['10.244.1.7'] })).toBe(`${loopback}10.244.1.7\tweb-0

# Entries added by HostAliases.
127.0.0.1\tfoo.local\tbar.local
10.1.2.3\tfoo.remote
`);
  });

  it('gives a hostNetwork pod the node file under its own header, then the aliases', () => {
    const nodeHosts = '127.0.0.1\tlocalhost\n192.168.1.50\tnode-a\n';
    const p = pod({ hostNetwork: true, hostAliases: [{ ip: '10.1.2.3', hostnames: ['foo'] }] });
    expect(podHostsFileContent(p, { ...ctx, podIPs: ['192.168.1.50'], nodeHostsFile: nodeHosts })).toBe(`# Kubernetes-managed hosts file (host network).
127.0.0.1\tlocalhost
192.168.1.50\tnode-a

# Entries added by HostAliases.
10.1.2.3\tfoo
`);
  });

  it('refuses a hostNetwork pod without the node file, as a bug of the caller', () => {
    expect(() => podHostsFileContent(pod({ hostNetwork: true }), { ...ctx, podIPs: [] })).toThrow(KubeletBug);
  });
});

describe('managedHostsFileContent and nodeHostsFileContent', () => {
  it('writes no pod line before the sandbox has an address, and no alias section without aliases', () => {
    expect(managedHostsFileContent({ podIPs: [], hostname: 'a', hostDomain: '' })).toBe(loopback);
    expect(nodeHostsFileContent('', [])).toBe('# Kubernetes-managed hosts file (host network).\n');
  });

  it('keeps an alias without names as a line with the address alone', () => {
    expect(nodeHostsFileContent('x\n', [{ ip: '1.2.3.4' }])).toContain('\n1.2.3.4\t\n');
  });
});

describe('podHostnameAndDomain', () => {
  it('cuts a long name to 63 characters without a trailing dash or dot', () => {
    const long = `${'a'.repeat(61)}-.bbbb`;
    expect(podHostnameAndDomain(pod({}, long), 'cluster.local')).toEqual({ hostname: 'a'.repeat(61), hostDomain: '' });
  });
});

describe('shouldMountHostsFile', () => {
  it.each([
    ['a pod-network pod with an address', {}, ['10.0.0.1'], true],
    ['a pod-network pod before its sandbox has an address', {}, [], false],
    ['a hostNetwork pod, even without an address', { hostNetwork: true }, [], true],
  ] as const)('%s: %s', (_, spec, ips, expected) => {
    expect(shouldMountHostsFile(pod(spec), ips)).toBe(expected);
  });

  it('leaves /etc/hosts to a container that mounts a volume there itself', () => {
    const own: Container = { name: 'app', image: 'x', volumeMounts: [{ name: 'h', mountPath: '/etc/hosts' }] };
    const other: Container = { name: 'app', image: 'x', volumeMounts: [{ name: 'h', mountPath: '/etc/other' }] };
    expect(shouldMountHostsFileFor(pod(), own, ['10.0.0.1'])).toBe(false);
    expect(shouldMountHostsFileFor(pod(), other, ['10.0.0.1'])).toBe(true);
  });
});

describe('etcHostsMount', () => {
  it('mounts the pod hosts file writable at /etc/hosts, relabeled only with SELinux on', () => {
    expect(etcHostsMount('/var/lib/kubelet/pods/u1//etc-hosts', true)).toEqual({
      container_path: '/etc/hosts', host_path: '/var/lib/kubelet/pods/u1/etc-hosts', readonly: false, selinux_relabel: true, propagation: 'PROPAGATION_PRIVATE',
    });
    expect(etcHostsMount('/p', false).selinux_relabel).toBe(false);
  });
});
