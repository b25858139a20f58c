/**
 * PortForward's other end: the embedded runtime's pods share the host's network, so a pod's port is
 * the host's loopback port, dialled only when the pod declares it and it is not one of the node's
 * own. A failure is worded as Go's streaming server and containerd word it
 * together ("error forwarding port P to pod ID, uid : failed to connect to localhost:P inside
 * namespace …"), since that text goes to the client's error channel as it is.
 */
import { connect, type Socket } from 'node:net';
import type { PortDialer } from '../../stream-protocols/sessions.js';

/** Dials the host's loopback, but never a port `refusal` gives a reason for (port-forward-rules.ts). */
export function hostNetworkDialer(sandboxId: string, refusal: (port: number) => string | null): PortDialer {
  return async (port) => {
    const refused = refusal(port);
    if (refused !== null) throw new Error(refused);
    const v4 = await dial('127.0.0.1', port);
    if (v4.ok) return v4.socket;
    const v6 = await dial('::1', port);
    if (v6.ok) return v6.socket;
    throw new Error(`error forwarding port ${port} to pod ${sandboxId}, uid : failed to connect to localhost:${port} inside namespace "${sandboxId}", IPv4: ${v4.error} IPv6 ${v6.error} `);
  };
}

type Dialed = { ok: true; socket: Socket } | { ok: false; error: string };

function dial(host: string, port: number): Promise<Dialed> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      resolve({ ok: true, socket });
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      socket.destroy();
      const family = host.includes(':') ? 'tcp6' : 'tcp4';
      const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
      resolve({ ok: false, error: `dial ${family} ${address}: connect: ${GO_ERRNO_TEXT[err.code ?? ''] ?? err.message}` });
    });
  });
}

/** Go prints errno as strerror's words. */
const GO_ERRNO_TEXT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  EADDRNOTAVAIL: 'cannot assign requested address',
  ENETUNREACH: 'network is unreachable',
  ETIMEDOUT: 'connection timed out',
};
