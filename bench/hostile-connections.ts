/**
 * A client that opens 1,000 connections to one of the kubelet's gRPC sockets and never sends the
 * HTTP/2 preface, held for the whole case: the front closes those past its bound as they come
 * (front-bounds.ts), and the rest once the preface timeout passes.
 */
import { createConnection, type Socket } from 'node:net';
import { sleep, type HostileCase, type HostileKubelet } from './hostile-case.js';

const CONNECTIONS = 1_000;

async function silentConnections(socketPath: string, seconds: number) {
  const sockets: Socket[] = [];
  let closedByKubelet = 0;
  const errors = new Map<string, number>();
  let holding = true;
  for (let i = 0; i < CONNECTIONS; i++) {
    const s = createConnection(socketPath);
    let failure: string | null = null;
    s.on('error', (err: NodeJS.ErrnoException) => {
      failure = err.code ?? err.message;
      errors.set(failure, (errors.get(failure) ?? 0) + 1);
    });
    // A reset is the kubelet closing a connection too; a connect that failed is not.
    s.on('close', () => { if (holding && (failure === null || failure === 'ECONNRESET')) closedByKubelet++; });
    // Read nothing, write nothing: only the kubelet can end it.
    sockets.push(s);
  }
  await sleep(seconds * 1000);
  holding = false;
  for (const s of sockets) s.destroy();
  return { closedByKubelet, errors };
}

function connectionsCase(which: string, socketOf: (k: HostileKubelet) => string): HostileCase {
  return {
    name: `${which}: ${CONNECTIONS.toLocaleString('en')} connections, no preface`,
    async attack(k, seconds) {
      const { closedByKubelet, errors } = await silentConnections(socketOf(k), seconds);
      const connectFailed = [...errors].filter(([code]) => code !== 'ECONNRESET').reduce((a, [, n]) => a + n, 0);
      const held = CONNECTIONS - closedByKubelet - connectFailed;
      const why = errors.size === 0 ? '' : ` (${[...errors].map(([code, n]) => `${n} × ${code}`).join(', ')})`;
      return { outcome: closedByKubelet > 0 ? 'bounded' : 'answered', detail: `${held} held, ${closedByKubelet} closed by the kubelet${why}` };
    },
  };
}

export const silentRegistrationConnections = connectionsCase('device plugins\' kubelet.sock', (k) => `${k.devicePluginsDir}/kubelet.sock`);
export const silentPodResourcesConnections = connectionsCase('pod resources socket', (k) => k.podResourcesSocket);
