import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createActor, toPromise, type AnyActorLogic } from 'xstate';
import { createPluginManagerActors } from '../../../src/actors/plugin-manager/plugin-manager-actors.js';
import type { NodeInfoManager } from '../../../src/actors/plugin-manager/node-info-manager.js';
import { createCsiDriverRegistry } from '../../../src/adapters/csi/csi-driver-registry.js';
import type { PluginClients, PluginSocketWatcher } from '../../../src/ports/plugin-registration.js';

const MOCK = 'csi-mock.lab.k8s.io';
const ENDPOINT = '/r/plugins/csi-mock/csi.sock';

function actors(watcher: PluginSocketWatcher = { watch: async () => ({ stop: () => {} }) }) {
  const drivers = createCsiDriverRegistry();
  const calls: string[] = [];
  const clients: PluginClients = {
    getInfo: async () => ({ type: 'CSIPlugin', name: MOCK, endpoint: ENDPOINT, supportedVersions: ['1.0.0'] }),
    notifyRegistrationStatus: async (path, status) => { calls.push(`notify ${status.registered}`); },
    nodeGetInfo: async () => ({ nodeId: 'n', maxVolumesPerNode: -1, topology: {} }),
  };
  const nodeInfo: NodeInfoManager = {
    initializeCsiNode: async (node) => { calls.push(`initialize ${node}`); },
    installDriver: async (node, driver) => { calls.push(`install ${node} ${driver.name}`); },
    uninstallDriver: async (node, name) => { calls.push(`uninstall ${node} ${name}`); },
  };
  const effects = createPluginManagerActors({ watcher, clients, drivers, nodeInfo, logger: pino({ level: 'silent' }) });
  const run = <T>(logic: AnyActorLogic, input: unknown) => toPromise(createActor(logic, { input }).start()) as Promise<T>;
  return { drivers, calls, effects, run };
}

const plugin = { name: MOCK, endpoint: ENDPOINT, versions: ['1.0.0'], highestVersion: '1.0.0' };
const nodeInfo = { name: MOCK, nodeId: 'n', maxVolumesPerNode: 0, topology: {} };

describe('createPluginManagerActors', () => {
  it('answers GetInfo with the highest version of a driver of that name registered already', async () => {
    const { drivers, effects, run } = actors();
    expect(await run(effects.getPluginInfo, { socketPath: '/r/plugins_registry/a.sock' })).toEqual({ info: expect.objectContaining({ name: MOCK }) });
    drivers.set({ name: MOCK, endpoint: ENDPOINT, versions: ['1.5.0', '0.3.0', '1.2.0'], nodeId: 'n', maxVolumesPerNode: 0 });
    expect(await run(effects.getPluginInfo, { socketPath: '/r/plugins_registry/b.sock' })).toMatchObject({ registeredVersion: '1.5.0' });
  });

  it('installs a driver into the registry, and onto the node\'s objects only in cluster mode', async () => {
    const { drivers, calls, effects, run } = actors();
    await run(effects.installCsiDriver, { plugin, nodeInfo, csiNode: null });
    expect(drivers.get(MOCK)).toEqual({ name: MOCK, endpoint: ENDPOINT, versions: ['1.0.0'], nodeId: 'n', maxVolumesPerNode: 0 });
    expect(calls).toEqual([]);
    await run(effects.installCsiDriver, { plugin, nodeInfo, csiNode: { nodeName: 'node-1', migratedPlugins: [] } });
    expect(calls).toEqual([`install node-1 ${MOCK}`]);
  });

  it('uninstalls a driver from the registry, and from the node\'s objects in cluster mode', async () => {
    const { drivers, calls, effects, run } = actors();
    await run(effects.installCsiDriver, { plugin, nodeInfo, csiNode: null });
    await run(effects.uninstallCsiDriver, { driverName: MOCK, csiNode: { nodeName: 'node-1', migratedPlugins: [] } });
    expect(drivers.list()).toEqual([]);
    expect(calls).toEqual([`uninstall node-1 ${MOCK}`]);
  });

  it('gives NodeGetInfo\'s answer under the driver\'s name', async () => {
    const { effects, run } = actors();
    expect(await run(effects.nodeGetInfo, { driverName: MOCK, endpoint: ENDPOINT })).toEqual({ name: MOCK, nodeId: 'n', maxVolumesPerNode: -1, topology: {} });
  });

  it('aborts the watch\'s first walk when the watcher actor stops before it ends', () => {
    let signal: AbortSignal | undefined;
    const { effects } = actors({ watch: (_dir, _handlers, s) => {
      signal = s;
      return new Promise(() => {});
    } });
    const actor = createActor(effects.watchPluginsDir, { input: { pluginsDir: '/r/plugins_registry' } }).start();
    expect(signal?.aborted).toBe(false);
    actor.stop();
    expect(signal?.aborted).toBe(true);
  });
});
