/** The test API server's TLS mode: the CA in the kubeconfig, bearer tokens and x509 client certificates. */
import './node20-compat.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientsFor } from './client-helpers.js';
import { startTestApiServer, TOKEN_USER, type TestApiServer } from './index.js';

let server: TestApiServer;

beforeAll(async () => {
  server = await startTestApiServer({ tls: true });
}, 30_000);

afterAll(async () => {
  await server.close();
});

describe('test API server over TLS', () => {
  it('serves https with a CA the kubeconfig carries, and authenticates the bearer token', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const c = clientsFor(server);
    server.requests.length = 0;
    await c.core.createNode({ body: { metadata: { name: 'n1' } } });
    expect(server.requests[0]?.user).toEqual(TOKEN_USER);
  });

  it('authenticates a client certificate as its CN in its O groups', async () => {
    const cert = await server.issueClientCertificate('system:node:n2', ['system:nodes']);
    const c = clientsFor(server, { clientCertificate: cert });
    server.requests.length = 0;
    const node = await c.core.createNode({ body: { metadata: { name: 'n2' } } });
    expect(node.metadata?.name).toBe('n2');
    expect(server.requests[0]?.user).toEqual({ username: 'system:node:n2', groups: ['system:nodes', 'system:authenticated'] });
  });

  it('answers 401 without credentials', async () => {
    const c = clientsFor(server);
    c.kc.users[0] = { name: c.kc.users[0]?.name ?? 'u' };
    // client-node drops the body of a 401 (its generated code maps the code to "Unauthorized").
    await expect(c.core.listNode()).rejects.toMatchObject({ code: 401 });
  });

  it('listens again over TLS after refusing connections', async () => {
    const c = clientsFor(server);
    await server.faults.refuseConnections(100);
    expect((await c.core.readNode({ name: 'n1' })).metadata?.name).toBe('n1');
  });
});
