/**
 * The TCP prober (Go: pkg/probe/tcp): success if a connection opens within the timeout. The socket
 * is then reset rather than closed, as Go's probe dialer does (SO_LINGER 0), so probes do not leave
 * TIME_WAIT sockets behind on a busy node.
 */
import net from 'node:net';
import { joinHostPort } from '../../domain/probe/target.js';
import type { ProbeOutcome, ProbeTarget } from '../../domain/probe/types.js';

type TcpTarget = Extract<ProbeTarget, { kind: 'tcpSocket' }>;

export function tcpProbe(target: TcpTarget): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const address = joinHostPort(target.host, target.port);
    const socket = net.connect({ host: target.host, port: target.port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ result: 'failure', output: `dial tcp ${address}: i/o timeout` });
    }, target.timeoutSeconds * 1000);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.resetAndDestroy();
      resolve({ result: 'success' });
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      socket.destroy();
      // Go converts dial errors (refused, unreachable, timeout) into failures.
      resolve({ result: 'failure', output: `dial tcp ${address}: ${err.message}` });
    });
  });
}
