/**
 * Host ports a pod holds on its node, and whether a wanted one is taken (the scheduler's NodePorts
 * check: util.GetHostPorts and framework.HostPortInfo.CheckConflict).
 * A pod holds the `hostPort`s (> 0) of its containers and of its sidecars (init containers with
 * restartPolicy Always, which run as long as the pod); plain init containers hold none. An empty
 * hostIP means 0.0.0.0 and an empty protocol TCP. 0.0.0.0 is the wildcard: a port wanted on
 * 0.0.0.0 conflicts with that protocol and port on any address, and one wanted on an address
 * conflicts with the same address or 0.0.0.0 (`::` is an address like any other, as in Go).
 */
import type { Pod } from './types.js';

export const BIND_ALL_HOST_IP = '0.0.0.0';

export interface HostPortUse {
  hostIP: string;
  protocol: string;
  port: number;
}

/** The host ports the pod holds, sanitized (hostIP and protocol defaulted). */
export function podHostPorts(pod: Pod): HostPortUse[] {
  const holders = [...(pod.spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always'), ...pod.spec.containers];
  const out: HostPortUse[] = [];
  for (const c of holders) {
    for (const p of c.ports ?? []) {
      if (!(typeof p.hostPort === 'number' && p.hostPort > 0)) continue;
      out.push({ hostIP: p.hostIP || BIND_ALL_HOST_IP, protocol: p.protocol || 'TCP', port: p.hostPort });
    }
  }
  return out;
}

/** Whether `wanted` collides with a port in `used` (see the file comment for the wildcard). */
export function hostPortTaken(used: readonly HostPortUse[], wanted: HostPortUse): boolean {
  return used.some((u) =>
    u.port === wanted.port && u.protocol === wanted.protocol
    && (wanted.hostIP === BIND_ALL_HOST_IP || u.hostIP === BIND_ALL_HOST_IP || u.hostIP === wanted.hostIP));
}
