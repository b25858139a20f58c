/** createApiClients over HTTPS with a client certificate from the kubeconfig (the kubelet's usual credentials). */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiClients } from '../../../src/adapters/apiserver/create-api-clients.js';
import { systemClock } from '../../../src/adapters/system-clock.js';
import { startTestApiServer, type TestApiServer } from '../../apiserver/index.js';

let server: TestApiServer;
let dir: string;

beforeAll(async () => {
  server = await startTestApiServer({ tls: true });
  dir = mkdtempSync(join(tmpdir(), 'kts-clients-tls-'));
});
afterAll(async () => {
  await server.close();
});

describe('createApiClients over TLS', () => {
  it('authenticates with the kubeconfig client certificate on every client, also after reopen', async () => {
    const cert = await server.issueClientCertificate('system:node:tls-node', ['system:nodes']);
    const clients = createApiClients({
      kubeconfigPath: server.kubeconfigPath(dir, { clientCertificate: cert }),
      qps: 50, burst: 100, eventQps: 50, eventBurst: 100, heartbeatTimeoutMs: 5_000, clock: systemClock, logger: pino({ level: 'silent' }),
    });
    expect(clients.server.startsWith('https://')).toBe(true);
    await clients.main.createNode({ metadata: { name: 'tls-node' } });
    await clients.heartbeat.patchNodeStatus('tls-node', { addresses: [{ type: 'Hostname', address: 'tls-node' }] });
    clients.heartbeat.reopen();
    const node = await clients.heartbeat.getNode('tls-node');
    expect(node.status?.addresses).toEqual([{ type: 'Hostname', address: 'tls-node' }]);
    const users = server.requests.filter((r) => r.path.includes('/nodes')).map((r) => r.user?.username);
    expect(users).toEqual(['system:node:tls-node', 'system:node:tls-node', 'system:node:tls-node']);
  });

  it('opens the connections of concurrent requests with the one TLS context the client made', async () => {
    const cert = await server.issueClientCertificate('system:node:tls-burst', ['system:nodes']);
    const clients = createApiClients({
      kubeconfigPath: server.kubeconfigPath(dir, { clientCertificate: cert }),
      qps: 50, burst: 100, eventQps: 50, eventBurst: 100, heartbeatTimeoutMs: 5_000, clock: systemClock, logger: pino({ level: 'silent' }),
    });
    await clients.main.createNode({ metadata: { name: 'tls-burst' } });
    const contexts = vi.spyOn(tls, 'createSecureContext');
    try {
      const before = server.requests.length;
      // At once: the keep-alive agent has one free connection and opens a new one for each other request.
      await Promise.all(Array.from({ length: 5 }, () => clients.main.getNode('tls-burst')));
      expect(server.requests.slice(before).map((r) => r.user?.username)).toEqual(Array(5).fill('system:node:tls-burst'));
      expect(contexts).not.toHaveBeenCalled();
    } finally {
      contexts.mockRestore();
    }
  });
});
