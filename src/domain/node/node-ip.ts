/**
 * `--node-ip` at runKubelet.validateNodeIP: Go's `nodeutil.ParseNodeIPArgument` (RunKubelet) and
 * the kubelet's `validateNodeIP` (run by the node-address setter), with Go's messages.
 *
 * Where we differ from the Go kubelet, on purpose:
 * - Go validates the node IP against the host's interfaces only when it builds node status, so a
 *   wrong --node-ip shows up as failing status updates; we check at start-up and fail the phase,
 *   with the same message, so the mistake is named before anything runs.
 * - The host's addresses come in through the `HostAddresses` port (non-loopback addresses);
 *   loopback IPs are rejected before that list is consulted, so the answer is the same.
 */
import { KubeletError } from '../errors.js';
import {
  formatIp, ipEqual, isIPv6, isLinkLocalUnicast, isLoopback, isMulticast, isUnspecified, parseIpSloppy,
  type IpAddress,
} from '../net/ip-address.js';

/** Go's cloudProviderNone and cloudProviderExternal: the only values that allow a dual-stack pair. */
const CLOUD_PROVIDER_NONE = '';
const CLOUD_PROVIDER_EXTERNAL = 'external';

export interface ParsedNodeIps {
  /** Zero, one, or a dual-stack pair (primary first), as parsed. */
  ips: IpAddress[];
  /** Entries that did not parse: Go logs them ("Could not parse some node IP(s), ignoring them") and goes on. */
  invalid: string[];
}

/**
 * `nodeutil.ParseNodeIPArgument(nodeIP, cloudProvider)`, sloppy mode: entries are trimmed, entries
 * that do not parse are returned in `invalid` and ignored. Throws KLT_ERR_NODE_IP_INVALID with
 * RunKubelet's wrapping: `bad --node-ip "<value>": <reason>`.
 */
export function parseNodeIpArgument(nodeIp: string, cloudProvider: string): ParsedNodeIps {
  const allowDual = cloudProvider === CLOUD_PROVIDER_NONE || cloudProvider === CLOUD_PROVIDER_EXTERNAL;
  const ips: IpAddress[] = [];
  const invalid: string[] = [];
  if (nodeIp !== '') {
    for (const raw of nodeIp.split(',')) {
      const entry = raw.trim();
      const ip = parseIpSloppy(entry);
      if (ip) ips.push(ip);
      else invalid.push(entry);
    }
  }
  const fail = (reason: string) =>
    new KubeletError('KLT_ERR_NODE_IP_INVALID', `bad --node-ip ${JSON.stringify(nodeIp)}: ${reason}`);
  const [first, second] = ips;
  if (ips.length > 2 || (first && second && isIPv6(first) === isIPv6(second))) {
    throw fail('must contain either a single IP or a dual-stack pair of IPs');
  }
  if (first && second && !allowDual) throw fail('dual-stack not supported in this configuration');
  if (first && second && (isUnspecified(first) || isUnspecified(second))) {
    throw fail("dual-stack node IP cannot include '0.0.0.0' or '::'");
  }
  return { ips, invalid };
}

/**
 * The kubelet's `validateNodeIP`: the Go message, or null when the IP may be the node's.
 * `hostAddresses` are the host's interface addresses as text (unparseable entries are skipped).
 */
export function validateNodeIp(ip: IpAddress, hostAddresses: readonly string[]): string | null {
  if (isLoopback(ip)) return "nodeIP can't be loopback address";
  if (isMulticast(ip)) return "nodeIP can't be a multicast address";
  if (isLinkLocalUnicast(ip)) return "nodeIP can't be a link-local unicast address";
  if (isUnspecified(ip)) return "nodeIP can't be an all zeros address";
  for (const text of hostAddresses) {
    const host = parseIpSloppy(text);
    if (host && ipEqual(host, ip)) return null;
  }
  return `node IP: ${JSON.stringify(formatIp(ip))} not found in the host's network interfaces`;
}

export interface NodeIpResolution {
  /** The node IPs in Go's text form, primary first; empty when --node-ip is empty or unspecified. */
  nodeIps: string[];
  /** True when --node-ip was `0.0.0.0` or `::`: "pick automatically, of this family". */
  unspecifiedFamily: 4 | 6 | null;
  /** Entries ignored because they did not parse (to log). */
  invalid: string[];
}

/**
 * The whole phase: parse --node-ip, then check each given (not unspecified) IP against the host's
 * addresses unless an external cloud provider owns node addresses. Throws KLT_ERR_NODE_IP_INVALID
 * with Go's node-address setter wording ("failed to validate nodeIP: …" / "…secondaryNodeIP: …").
 */
export function resolveNodeIps(input: { nodeIp: string; cloudProvider: string; hostAddresses: readonly string[] }): NodeIpResolution {
  const { ips, invalid } = parseNodeIpArgument(input.nodeIp, input.cloudProvider);
  const first = ips[0];
  // A single 0.0.0.0 / :: means "auto-detect, preferring this family" (Go: nodeIPSpecified is false).
  if (ips.length === 1 && first && isUnspecified(first)) {
    return { nodeIps: [], unspecifiedFamily: isIPv6(first) ? 6 : 4, invalid };
  }
  if (input.cloudProvider !== CLOUD_PROVIDER_EXTERNAL) {
    ips.forEach((ip, i) => {
      const problem = validateNodeIp(ip, input.hostAddresses);
      if (problem) {
        const which = i === 0 ? 'nodeIP' : 'secondaryNodeIP';
        throw new KubeletError('KLT_ERR_NODE_IP_INVALID', `failed to validate ${which}: ${problem}`);
      }
    });
  }
  return { nodeIps: ips.map(formatIp), unspecifiedFamily: null, invalid };
}

/**
 * The node's IPs as the Node reports them (InternalIP) and as its pods see them (status.hostIP,
 * the downward API's status.hostIP/hostIPs): --node-ip's, else the host's first IPv4 address, else
 * loopback. One answer for every reader, so a pod's HOST_IP is the address its status shows.
 */
export function nodeHostIps(nodeIps: readonly string[], hostAddresses: readonly { address: string; family: number }[]): string[] {
  if (nodeIps.length > 0) return [...nodeIps];
  return [hostAddresses.find((a) => a.family === 4)?.address ?? '127.0.0.1'];
}
