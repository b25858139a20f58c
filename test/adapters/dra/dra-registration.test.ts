/**
 * A DRA plugin's registration end to end, short of the watcher: the plugin registration machine
 * with the real effects (GetInfo and NotifyRegistrationStatus over gRPC, the DRA driver registry)
 * against a fake DRA plugin on a real unix socket; then the plugin called through the DRA client
 * on the service it was registered with; then its deregistration.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDraPluginClients } from '../../../src/adapters/dra/dra-plugin-clients.js';
import { registerSocket } from '../../support/dra-registration.js';
import { startFakeDraPlugin, type FakeDraPlugin, type FakeDraPluginOptions } from '../../support/fake-dra-plugin.js';

const DRIVER = 'gpu.example.com';
const CLAIM = { namespace: 'default', uid: 'claim-uid-1', name: 'gpu' };

const handlers = {
  NodePrepareResources: () => ({ claims: { [CLAIM.uid]: { devices: [{ request_names: ['gpu'], pool_name: 'node-1', device_name: 'gpu-0', cdi_device_ids: ['example.com/gpu=gpu-0'] }] } } }),
  NodeUnprepareResources: () => ({ claims: { [CLAIM.uid]: {} } }),
};

let plugin: FakeDraPlugin | undefined;
afterEach(async () => {
  await plugin?.dispose();
  plugin = undefined;
});

/** A fake plugin started, and its socket's registration. */
async function register(o: FakeDraPluginOptions) {
  plugin = await startFakeDraPlugin(o);
  return { plugin, ...registerSocket(plugin.socketPath) };
}

describe('a DRA plugin\'s registration', () => {
  it.each([
    ['v1.DRAPlugin', ['v1.DRAPlugin', 'v1beta1.DRAPlugin']],
    ['v1beta1.DRAPlugin', ['v1beta1.DRAPlugin']],
  ] as const)('registers a plugin on %s, tells it so, and calls it there', async (service, supportedVersions) => {
    const r = await register({ name: DRIVER, supportedVersions: [...supportedVersions], serves: { [service]: handlers } });
    await vi.waitFor(() => expect(r.state()).toBe('registered'), 5_000);
    expect(r.plugin.statuses).toEqual([{ plugin_registered: true, error: '' }]);
    expect(r.draDrivers.list()).toEqual([{ driverName: DRIVER, endpoint: r.plugin.socketPath, service }]);

    const clients = createDraPluginClients(r.draDrivers);
    const client = clients.get(DRIVER);
    expect(await client.nodePrepareResources([CLAIM])).toEqual(new Map([[CLAIM.uid, { devices: [{ requestNames: ['gpu'], poolName: 'node-1', deviceName: 'gpu-0', cdiDeviceIds: ['example.com/gpu=gpu-0'] }] }]]));
    expect(await client.nodeUnprepareResources([CLAIM])).toEqual(new Map([[CLAIM.uid, { error: '' }]]));
    expect(r.plugin.calls).toEqual([`${service} NodePrepareResources`, `${service} NodeUnprepareResources`]);
    clients.close();
    r.stop();
  });

  it('refuses a plugin naming no service the kubelet calls, telling it Go\'s message', async () => {
    const r = await register({ name: DRIVER, supportedVersions: ['1.0.0'], serves: {} });
    await vi.waitFor(() => expect(r.state()).toBe('retrying'), 5_000);
    expect(r.plugin.statuses).toEqual([{
      plugin_registered: false,
      error: `RegisterPlugin error -- plugin validation failed with err: invalid supported gRPC versions of DRA driver plugin ${DRIVER} at endpoint ${r.plugin.socketPath}: none of services supported by the plugin (["1.0.0"]) are supported by the kubelet (["v1.DRAPlugin" "v1beta1.DRAPlugin"])`,
    }]);
    expect(r.draDrivers.list()).toEqual([]);
    r.stop();
  });

  it('refuses a second plugin of the driver on an endpoint it has already, with Go\'s message', async () => {
    const r = await register({ name: DRIVER, supportedVersions: ['v1.DRAPlugin'], serves: { 'v1.DRAPlugin': handlers } });
    r.draDrivers.add({ driverName: DRIVER, endpoint: r.plugin.socketPath, service: 'v1.DRAPlugin' });
    await vi.waitFor(() => expect(r.state()).toBe('retrying'), 5_000);
    expect(r.plugin.statuses).toEqual([{
      plugin_registered: false,
      error: `RegisterPlugin error -- plugin registration failed with err: endpoint ${r.plugin.socketPath} already registered for DRA driver plugin ${DRIVER}`,
    }]);
    r.stop();
  });

  it('takes the plugin out of the registry when its socket is removed, and ends', async () => {
    const r = await register({ name: DRIVER, supportedVersions: ['v1.DRAPlugin'], serves: { 'v1.DRAPlugin': handlers } });
    await vi.waitFor(() => expect(r.state()).toBe('registered'), 5_000);
    r.child.send({ type: 'plugin.socket.removed', socketPath: r.plugin.socketPath });
    await vi.waitFor(() => expect(r.ended).toEqual([r.plugin.socketPath]), 5_000);
    expect(r.draDrivers.list()).toEqual([]);
    expect(() => createDraPluginClients(r.draDrivers).get(DRIVER)).toThrow(expect.objectContaining({ code: 'KLT_ERR_DRA_PLUGIN', message: `DRA driver ${DRIVER} is not registered` }));
    r.stop();
  });
});
