import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { tcpProbe } from '../../../src/adapters/probers/tcp-prober.js';

async function listen(): Promise<net.Server> {
  const server = net.createServer((socket) => socket.on('error', () => {}));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

describe('tcpProbe', () => {
  it('succeeds when a listener accepts the connection', async () => {
    const server = await listen();
    let accepted = 0;
    server.on('connection', () => accepted++);
    const { port } = server.address() as AddressInfo;
    expect(await tcpProbe({ kind: 'tcpSocket', host: '127.0.0.1', port, timeoutSeconds: 1 })).toEqual({ result: 'success' });
    // The server sees the connection after the probe has already closed it: wait for that event.
    await vi.waitFor(() => expect(accepted).toBe(1), { timeout: 2000, interval: 5 });
    await new Promise((resolve) => server.close(resolve));
  });

  it('fails on a closed port', async () => {
    const server = await listen();
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const outcome = await tcpProbe({ kind: 'tcpSocket', host: '127.0.0.1', port, timeoutSeconds: 1 });
    expect(outcome.result).toBe('failure');
    expect(outcome.output).toContain(`dial tcp 127.0.0.1:${port}`);
    expect(outcome.output).toContain('ECONNREFUSED');
  });
});
