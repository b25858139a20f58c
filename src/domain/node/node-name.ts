/**
 * run.nodeName: Go's `nodeutil.GetHostname(hostnameOverride)` followed by `getNodeName` without a
 * cloud provider (the node name is the hostname). The override wins when it is non-empty; either
 * value is trimmed and lower-cased. A whitespace-only override does not fall back to the OS
 * hostname (Go checks the raw length), it is an error.
 */
import { KubeletError } from '../errors.js';

export interface NodeName {
  /** The hostname the kubelet reports (Go: `hostname`). */
  hostname: string;
  /** The Node object's name (Go: `nodeName`); equal to the hostname without a cloud provider. */
  nodeName: string;
  /** Go's `hostnameOverridden`: --hostname-override was given. */
  hostnameOverridden: boolean;
}

/** `osHostname` is what the host says (HostnameSource); `hostnameOverride` is the flag's raw value. */
export function resolveNodeName(input: { hostnameOverride: string; osHostname: string }): NodeName {
  const overridden = input.hostnameOverride.length > 0;
  const hostname = (overridden ? input.hostnameOverride : input.osHostname).trim();
  if (hostname.length === 0) {
    // Go: "empty hostname is invalid"; we also name where the empty value came from.
    throw overridden
      ? new KubeletError('KLT_ERR_FLAG_INVALID', 'empty hostname is invalid: --hostname-override is blank')
      : new KubeletError('KLT_ERR_HOST_IO', 'empty hostname is invalid: the host reports no hostname; set --hostname-override');
  }
  const name = hostname.toLowerCase();
  return { hostname: name, nodeName: name, hostnameOverridden: overridden };
}
