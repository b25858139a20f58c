/**
 * The /etc/hosts file the kubelet writes for a pod and bind-mounts into each of its containers
 * (Go: kubelet_pods.go, shouldMountHostsFile, makeHostsMount, ensureHostsFile,
 * managedHostsFileContent, nodeHostsFileContent, hostsEntriesFromHostAliases).
 *
 * - A pod on the pod network gets a managed file: a header line, the loopback and IPv6 lines, one
 *   line per pod IP naming the pod (the FQDN first when the pod has a subdomain), then the
 *   HostAliases section.
 * - A hostNetwork pod gets the node's own /etc/hosts under a header of its own, then the HostAliases
 *   section.
 * The file lives at `<podDir>/etc-hosts` (domain/pod/pod-paths.ts); writing it (mode 0644, every time a container is started,
 * as Go does) is the adapters' business: src/adapters/fs/etc-hosts-file.ts.
 *
 * Windows (Go also skips the mount for a pod with a hostProcess container there) is not handled:
 * kubelet-ts runs on Linux only.
 */
import { KubeletBug } from '../errors.js';
import type { Container, HostAlias, Pod } from '../pod/types.js';
import { makeAbsolutePath } from './absolute-path.js';
import type { CriMount } from './cri-config.js';
import { podHostnameAndDomain } from './pod-hostname.js';

/** Where the file appears in a container, and where the node's own file is. */
export const etcHostsPath = '/etc/hosts';

export const managedHostsHeader = '# Kubernetes-managed hosts file.\n';
export const managedHostsHeaderWithHostNetwork = '# Kubernetes-managed hosts file (host network).\n';

/**
 * Whether the pod's containers get the managed file at all: once the sandbox has an IP, or at
 * once for a hostNetwork pod. Before the sandbox has an IP there is nothing to write.
 */
export function shouldMountHostsFile(pod: Pod, podIPs: readonly string[]): boolean {
  return podIPs.length > 0 || pod.spec.hostNetwork === true;
}

/** A container that mounts a volume at /etc/hosts itself keeps it (Go compares the path as written). */
export function containerMountsEtcHosts(container: Container): boolean {
  return (container.volumeMounts ?? []).some((m) => m.mountPath === etcHostsPath);
}

/** Both rules of makeMounts together, for one container. */
export function shouldMountHostsFileFor(pod: Pod, container: Container, podIPs: readonly string[]): boolean {
  return shouldMountHostsFile(pod, podIPs) && !containerMountsEtcHosts(container);
}

/** The HostAliases section: empty without aliases, else a blank line, its header, one line per alias. */
export function hostsEntriesFromHostAliases(hostAliases: readonly HostAlias[] | undefined): string {
  if (!hostAliases || hostAliases.length === 0) return '';
  let out = '\n# Entries added by HostAliases.\n';
  for (const alias of hostAliases) out += `${alias.ip}\t${(alias.hostnames ?? []).join('\t')}\n`;
  return out;
}

export interface ManagedHostsInput {
  podIPs: readonly string[];
  hostname: string;
  /** '' when the pod has no subdomain. */
  hostDomain: string;
  hostAliases?: readonly HostAlias[];
}

/** The file for a pod on the pod network. */
export function managedHostsFileContent(input: ManagedHostsInput): string {
  let out = managedHostsHeader
    + '127.0.0.1\tlocalhost\n'
    + '::1\tlocalhost ip6-localhost ip6-loopback\n'
    + 'fe00::0\tip6-localnet\n'
    + 'fe00::0\tip6-mcastprefix\n'
    + 'fe00::1\tip6-allnodes\n'
    + 'fe00::2\tip6-allrouters\n';
  const names = input.hostDomain ? `${input.hostname}.${input.hostDomain}\t${input.hostname}` : input.hostname;
  for (const ip of input.podIPs) out += `${ip}\t${names}\n`;
  return out + hostsEntriesFromHostAliases(input.hostAliases);
}

/** The file for a hostNetwork pod: the node's /etc/hosts, as read, between the header and the aliases. */
export function nodeHostsFileContent(nodeHostsFile: string, hostAliases?: readonly HostAlias[]): string {
  return managedHostsHeaderWithHostNetwork + nodeHostsFile + hostsEntriesFromHostAliases(hostAliases);
}

export interface PodHostsFileInput {
  podIPs: readonly string[];
  clusterDomain: string;
  /** The node's /etc/hosts as read; needed only for a hostNetwork pod. */
  nodeHostsFile?: string;
}

/** The file a pod gets, whichever network it is on (ensureHostsFile's choice). */
export function podHostsFileContent(pod: Pod, input: PodHostsFileInput): string {
  if (pod.spec.hostNetwork) {
    if (input.nodeHostsFile === undefined) throw new KubeletBug('podHostsFileContent: a hostNetwork pod needs the node hosts file');
    return nodeHostsFileContent(input.nodeHostsFile, pod.spec.hostAliases);
  }
  const { hostname, hostDomain } = podHostnameAndDomain(pod, input.clusterDomain);
  return managedHostsFileContent({ podIPs: input.podIPs, hostname, hostDomain, hostAliases: pod.spec.hostAliases });
}

/**
 * The mount of the file into a container (makeHostsMount): writable, private propagation, and
 * relabeled for SELinux when the host has SELinux on (kuberuntime's makeMounts asks the host).
 */
export function etcHostsMount(hostsFile: string, selinuxEnabled: boolean): CriMount {
  return {
    container_path: etcHostsPath,
    host_path: makeAbsolutePath(hostsFile),
    readonly: false,
    selinux_relabel: selinuxEnabled,
    propagation: 'PROPAGATION_PRIVATE',
  };
}
