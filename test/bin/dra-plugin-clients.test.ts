import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDraDriverRegistry } from '../../src/adapters/dra/dra-driver-registry.js';
import { lazyDraPluginClients } from '../../src/bin/plugin-clients.js';

describe('lazyDraPluginClients', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kts-lazy-dra-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers a driver with no plugin at once, in Go\'s words, and calls a registered one through the loaded clients', async () => {
    const registry = createDraDriverRegistry();
    const clients = lazyDraPluginClients(registry);
    expect(() => clients.get('')).toThrow('DRA driver name is empty');
    expect(() => clients.get('gpu.example.com')).toThrow(expect.objectContaining({ code: 'KLT_ERR_DRA_PLUGIN', message: 'DRA driver gpu.example.com is not registered' }));
    const endpoint = join(dir, 'nobody.sock');
    registry.add({ driverName: 'gpu.example.com', endpoint, service: 'v1.DRAPlugin' });
    // Nothing listens there: the loaded client's failure names the driver and its endpoint.
    await expect(clients.get('gpu.example.com').nodePrepareResources([{ namespace: 'ns', uid: 'u', name: 'c' }])).rejects.toMatchObject({
      code: 'KLT_ERR_DRA_PLUGIN', message: expect.stringContaining(`DRA driver gpu.example.com at endpoint ${endpoint}: NodePrepareResources`),
    });
    clients.close();
  }, 30_000);
});
