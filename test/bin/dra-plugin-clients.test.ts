import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createDraDriverRegistry } from '../../src/adapters/dra/dra-driver-registry.js';
import { lazyDraPluginClients } from '../../src/bin/plugin-clients.js';
import { startFakeDraPlugin } from '../support/fake-dra-plugin.js';

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

  it('loads the clients when a plugin registers, so its connection is watched before any call', async () => {
    const plugin = await startFakeDraPlugin({ name: 'gpu.example.com', supportedVersions: ['v1.DRAPlugin'], serves: {} });
    const registry = createDraDriverRegistry();
    const clients = lazyDraPluginClients(registry);
    registry.add({ driverName: 'gpu.example.com', endpoint: plugin.socketPath, service: 'v1.DRAPlugin' });
    await vi.waitFor(() => expect(registry.usable('gpu.example.com')).toBe(true), { timeout: 10_000 });
    clients.close();
    await plugin.dispose();
  }, 30_000);
});
