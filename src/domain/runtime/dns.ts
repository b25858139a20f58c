/**
 * A pod's DNS settings and hostname as the Go kubelet computes them (pkg/kubelet/network/dns
 * GetPodDNS, pkg/kubelet/util GeneratePodHostNameAndDomain / GetNodenameForKernel).
 *
 * dnsPolicy: ClusterFirst (the default) uses the cluster DNS servers with the cluster search path,
 * except for hostNetwork pods, which get the host's resolv.conf like Default; without cluster DNS
 * configured ClusterFirst falls back to Default. ClusterFirstWithHostNet is ClusterFirst even on the
 * host network. None starts empty. The pod's own dnsConfig is appended last in every case.
 */
import { KubeletError } from '../errors.js';
import type { Pod } from '../pod/types.js';
import type { CriDNSConfig } from './cri-config.js';
import { podHostnameAndDomain } from './pod-hostname.js';

/** resolv.conf limits the kubelet enforces (formDNSConfigFitsLimits). */
export const maxDnsNameservers = 3;
export const maxDnsSearchPaths = 32;
export const maxDnsSearchListChars = 2048;

export interface DnsContext {
  /** --cluster-dns. */
  clusterDNS: string[];
  /** --cluster-domain ("" when unset). */
  clusterDomain: string;
  /** The host's resolv.conf (--resolv-conf) parsed; undefined when --resolv-conf is "". */
  hostDns?: CriDNSConfig;
  /** The node's IPs, to pick 127.0.0.1 or ::1 when there is no resolv.conf. */
  nodeIPs: string[];
}

/** parseResolvConf: nameservers accumulate, the last `search` line wins, options merge by name. */
export function parseResolvConf(text: string): CriDNSConfig {
  const servers: string[] = [];
  let searches: string[] = [];
  let options: string[] = [];
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.startsWith('#')) continue;
    const [keyword, ...fields] = trimmed.split(/\s+/).filter(Boolean);
    if (keyword === 'nameserver' && fields[0] !== undefined) servers.push(fields[0]);
    if (keyword === 'search') searches = fields.filter((s) => s !== '.').map((s) => s.replace(/\.$/, ''));
    if (keyword === 'options') options = mergeOptions(options, fields.map(splitOption));
  }
  return { servers, searches, options };
}

function splitOption(option: string): { name: string; value?: string } {
  const colon = option.indexOf(':');
  return colon === -1 ? { name: option } : { name: option.slice(0, colon), value: option.slice(colon + 1) };
}

/** Later options replace earlier ones of the same name; a value-less option is written bare. */
function mergeOptions(existing: string[], extra: { name: string; value?: string }[]): string[] {
  const byName = new Map<string, string>();
  for (const { name, value } of [...existing.map(splitOption), ...extra]) byName.set(name, value ?? '');
  return [...byName].map(([name, value]) => (value === '' ? name : `${name}:${value}`));
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

type PodDnsType = 'none' | 'cluster' | 'host';

function podDnsType(pod: Pod): PodDnsType {
  switch (pod.spec.dnsPolicy ?? 'ClusterFirst') {
    case 'None': return 'none';
    case 'ClusterFirstWithHostNet': return 'cluster';
    case 'ClusterFirst': return pod.spec.hostNetwork ? 'host' : 'cluster';
    case 'Default': return 'host';
  }
}

export function podDnsConfig(pod: Pod, ctx: DnsContext): CriDNSConfig {
  const host = ctx.hostDns ?? { servers: [], searches: [], options: [] };
  let config: CriDNSConfig = { servers: [...host.servers], searches: [...host.searches], options: [...host.options] };
  let type = podDnsType(pod);
  if (type === 'cluster' && ctx.clusterDNS.length === 0) type = 'host'; // Go warns MissingClusterDNS and falls back.

  if (type === 'none') {
    config = { servers: [], searches: [], options: [] };
  } else if (type === 'cluster') {
    const namespace = pod.metadata.namespace ?? 'default';
    const clusterSearch = ctx.clusterDomain === '' ? [] : [`${namespace}.svc.${ctx.clusterDomain}`, `svc.${ctx.clusterDomain}`, ctx.clusterDomain];
    config = { servers: [...ctx.clusterDNS], searches: unique([...clusterSearch, ...config.searches]), options: ['ndots:5'] };
  } else if (ctx.hostDns === undefined) {
    // --resolv-conf="": point at the local resolver and disable the search path.
    const servers = ctx.nodeIPs.map((ip) => (ip.includes(':') ? '::1' : '127.0.0.1'));
    config = { servers: servers.length > 0 ? servers : ['127.0.0.1'], searches: ['.'], options: config.options };
  }

  const own = pod.spec.dnsConfig;
  if (own) {
    config = {
      servers: unique([...config.servers, ...(own.nameservers ?? [])]),
      searches: unique([...config.searches, ...(own.searches ?? [])]),
      options: mergeOptions(config.options, own.options ?? []),
    };
  }
  return fitToLimits(config);
}

function fitToLimits(config: CriDNSConfig): CriDNSConfig {
  const searches: string[] = [];
  let chars = 0;
  for (const s of config.searches.slice(0, maxDnsSearchPaths)) {
    chars += s.length + (searches.length > 0 ? 1 : 0);
    if (chars > maxDnsSearchListChars) break;
    searches.push(s);
  }
  return { servers: config.servers.slice(0, maxDnsNameservers), searches, options: config.options };
}

/** The sandbox hostname; undefined for hostNetwork pods, which keep the node's. */
export function podHostname(pod: Pod, clusterDomain: string): string | undefined {
  if (pod.spec.hostNetwork) return undefined;
  const { hostname, hostDomain: domain } = podHostnameAndDomain(pod, clusterDomain);
  if (!pod.spec.setHostnameAsFQDN || domain === '') return hostname;
  const fqdn = `${hostname}.${domain}`;
  if (fqdn.length > 64) {
    throw new KubeletError('KLT_ERR_POD_SPEC_INVALID', `failed to construct FQDN from pod hostname and cluster domain, FQDN ${fqdn} is too long (64 characters is the max, ${fqdn.length} characters requested)`);
  }
  return fqdn;
}
