import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, setup, SimulatedClock, type AnyActorRef, type AnyEventObject } from 'xstate';
import type { DriverNodeInfo } from '../../src/domain/csi/csi-node.js';
import type { PluginInfo } from '../../src/domain/csi/plugin-info.js';
import { KubeletError } from '../../src/domain/errors.js';
import { csiNodeBackoffMs, pluginManagerMachine, type PluginManagerEvent } from '../../src/machines/plugin-manager.machine.js';
import { pluginRegistrationMachine, type GetPluginInfoOutput } from '../../src/machines/plugin-registration.machine.js';
import { settle } from '../support/settle.js';

const DIR = '/var/lib/kubelet/plugins_registry';
const SOCKET = `${DIR}/csi-mock.lab.k8s.io-reg.sock`;
const DRIVER = 'csi-mock.lab.k8s.io';
const CSI: PluginInfo = { type: 'CSIPlugin', name: DRIVER, endpoint: '/var/lib/kubelet/plugins/csi-mock/csi.sock', supportedVersions: ['1.0.0'] };

/** A fake world: what each socket answers, which calls fail (a count per call), and every call made, in order. */
function start(o: { cluster?: boolean; info?: PluginInfo; fail?: Partial<Record<'getInfo' | 'nodeGetInfo' | 'install' | 'notifyTrue' | 'uninstall' | 'initialize' | 'addDra' | 'removeDra', number>>; holdInstall?: boolean; watchFails?: boolean } = {}) {
  const clock = new SimulatedClock();
  const calls: string[] = [];
  const fail = { ...o.fail };
  const failing = (what: keyof typeof fail) => {
    if ((fail[what] ?? 0) <= 0) return false;
    fail[what]! -= 1;
    return true;
  };
  const releases: (() => void)[] = [];
  let watcher: ((e: PluginManagerEvent) => void) | null = null;
  const machine = pluginManagerMachine.provide({
    actors: {
      watchPluginsDir: fromCallback<PluginManagerEvent, { pluginsDir: string }>(({ input, sendBack }) => {
        calls.push(`watch ${input.pluginsDir}`);
        if (o.watchFails) sendBack({ type: 'plugin.watch.failed', error: { code: 'KLT_ERR_HOST_IO', message: 'EACCES', retryable: false } });
        watcher = sendBack;
        return () => { watcher = null; };
      }),
      initializeCsiNode: fromPromise(async ({ input }) => {
        calls.push(`initializeCsiNode ${input.nodeName} ${input.migratedPlugins.length}`);
        if (failing('initialize')) throw new KubeletError('KLT_ERR_API_UNAVAILABLE', 'get csinode: ECONNREFUSED', { retryable: true });
      }),
      pluginRegistration: pluginRegistrationMachine.provide({
        actors: {
          getPluginInfo: fromPromise<GetPluginInfoOutput, { socketPath: string }>(async ({ input }) => {
            calls.push(`getInfo ${input.socketPath}`);
            if (failing('getInfo')) throw new KubeletError('KLT_ERR_PLUGIN_REGISTRATION', `RegisterPlugin error -- failed to get plugin info using RPC GetInfo at socket ${input.socketPath}, err: connection refused`, { retryable: true });
            return { info: o.info ?? CSI };
          }),
          notifyRegistrationStatus: fromPromise(async ({ input }) => {
            calls.push(`notify ${input.registered}${input.error ? ` ${input.error}` : ''}`);
            if (input.registered && failing('notifyTrue')) throw new Error('notify: deadline exceeded');
          }),
          nodeGetInfo: fromPromise<DriverNodeInfo, { driverName: string; endpoint: string }>(async ({ input }) => {
            calls.push(`nodeGetInfo ${input.endpoint}`);
            if (failing('nodeGetInfo')) throw new KubeletError('KLT_ERR_PLUGIN_REGISTRATION', 'NodeGetInfo: rpc error: code = Unavailable desc = down', { retryable: true });
            return { name: input.driverName, nodeId: 'node-1', maxVolumesPerNode: 0, topology: {} };
          }),
          installCsiDriver: fromPromise(async ({ input }) => {
            calls.push(`install ${input.plugin.name} ${input.plugin.highestVersion}${input.csiNode ? ` on ${input.csiNode.nodeName}` : ''}`);
            if (o.holdInstall) await new Promise<void>((r) => releases.push(r));
            if (failing('install')) throw new KubeletError('KLT_ERR_API_UNAVAILABLE', 'error updating CSINode object with CSI driver node info: ECONNREFUSED', { retryable: true });
          }),
          uninstallCsiDriver: fromPromise(async ({ input }) => {
            calls.push(`uninstall ${input.driverName}`);
            if (failing('uninstall')) throw new KubeletError('KLT_ERR_API_UNAVAILABLE', 'ECONNREFUSED', { retryable: true });
          }),
          addDraPlugin: fromPromise(async ({ input }) => {
            calls.push(`addDra ${input.plugin.name} ${input.plugin.endpoint} ${input.plugin.service}`);
            if (failing('addDra')) throw new KubeletError('KLT_ERR_PLUGIN_REGISTRATION', `endpoint ${input.plugin.endpoint} already registered for DRA driver plugin ${input.plugin.name}`);
          }),
          removeDraPlugin: fromPromise(async ({ input }) => {
            calls.push(`removeDra ${input.driverName} ${input.endpoint}`);
            if (failing('removeDra')) throw new KubeletError('KLT_ERR_INTERNAL', 'remove failed', { retryable: true });
          }),
        },
      }),
    },
  });
  const input = { pluginsDir: DIR, csiNode: o.cluster === false ? null : { nodeName: 'node-1', migratedPlugins: ['kubernetes.io/gce-pd'] } };
  // Beside it, a volume manager that records what it is told (the system id the registrations send to).
  const toVolumeManager: AnyEventObject[] = [];
  const volumeManager = fromCallback<AnyEventObject>(({ receive }) => receive((e) => void toVolumeManager.push(e)));
  const root = createActor(setup({ actors: { machine, volumeManager } }).createMachine({
    invoke: [{ src: 'volumeManager', systemId: 'volumeManager' }, { id: 'pluginManager', src: 'machine', input }],
  }), { clock });
  root.start();
  const actor = root.getSnapshot().children.pluginManager as unknown as ReturnType<typeof createActor<typeof machine>>;
  const socket = (type: 'plugin.socket.created' | 'plugin.socket.removed', path = SOCKET) => {
    if (!watcher) throw new Error('the watcher is not running');
    watcher({ type, socketPath: path });
  };
  const child = (path = SOCKET): AnyActorRef | undefined => actor.system.get(`plugin:${encodeURIComponent(path.slice(DIR.length + 1))}`);
  const childState = (path = SOCKET) => child(path)?.getSnapshot().value as string | undefined;
  return { actor, clock, calls, socket, child, childState, releases, toVolumeManager };
}

const runtimeUp = { type: 'runtime.up' } as const;
const DRA_DRIVER = 'gpu.example.com';
const DRA: PluginInfo = { type: 'DRAPlugin', name: DRA_DRIVER, endpoint: '', supportedVersions: ['v1beta1.DRAPlugin', 'v1.DRAPlugin'] };
const DRA_REGISTERED = ['getInfo', 'addDra', 'notify true'];
const REGISTERED = ['getInfo', 'nodeGetInfo', 'install', 'notify true'];
const verbs = (calls: string[]) => calls.filter((c) => !c.startsWith('initializeCsiNode') && !c.startsWith('watch')).map((c) => (c.startsWith('notify') ? c.split(' ').slice(0, 2).join(' ') : c.split(' ')[0]));

describe('pluginManagerMachine', () => {
  it('waits for the runtime before watching plugins_registry, as initializeRuntimeDependentModules starts it', async () => {
    const { actor, calls } = start();
    await settle();
    expect(actor.getSnapshot().value).toMatchObject({ watcher: 'waitingForRuntime' });
    expect(calls.filter((c) => c.startsWith('watch'))).toEqual([]);
    actor.send(runtimeUp);
    await settle();
    expect(actor.getSnapshot().value).toMatchObject({ watcher: 'watching' });
    expect(calls).toContain(`watch ${DIR}`);
  });

  it('registers a CSI plugin whose socket appears: GetInfo, NodeGetInfo, the install, NotifyRegistrationStatus(true)', async () => {
    const { actor, calls, socket, childState } = start();
    actor.send(runtimeUp);
    await settle();
    socket('plugin.socket.created');
    await settle(3);
    expect(childState()).toBe('registered');
    expect(calls).toContain(`getInfo ${SOCKET}`);
    expect(calls).toContain(`nodeGetInfo ${CSI.endpoint}`);
    expect(calls).toContain(`install ${DRIVER} 1.0.0 on node-1`);
    expect(verbs(calls)).toEqual(REGISTERED);
    expect(actor.getSnapshot().context.sockets).toEqual([SOCKET]);
  });

  it('tells the volume manager the driver is registered once it is installed, and never after a failed install', async () => {
    const { actor, socket, childState, toVolumeManager, clock } = start({ fail: { install: 1 } });
    actor.send(runtimeUp);
    await settle();
    socket('plugin.socket.created');
    await settle(3);
    expect(childState()).toBe('retrying');
    expect(toVolumeManager).toEqual([]);
    clock.increment(1000);
    await settle(3);
    expect(childState()).toBe('registered');
    expect(toVolumeManager).toEqual([{ type: 'volumes.driver.registered', driverName: DRIVER }]);
  });

  it('registers standalone without a CSINode: the install is told no node, and no CSINode is initialized', async () => {
    const { actor, calls, socket, childState } = start({ cluster: false });
    actor.send(runtimeUp);
    await settle();
    expect(actor.getSnapshot().value).toMatchObject({ csiNode: 'notNeeded' });
    socket('plugin.socket.created');
    await settle(3);
    expect(childState()).toBe('registered');
    expect(calls).toContain(`install ${DRIVER} 1.0.0`);
    expect(calls.some((c) => c.startsWith('initializeCsiNode'))).toBe(false);
  });

  it.each([
    ['a DevicePlugin', { ...CSI, type: 'DevicePlugin' }, `RegisterPlugin error -- no handler registered for plugin type: DevicePlugin at socket ${SOCKET}`],
    ['CSI 2.0 only', { ...CSI, supportedVersions: ['2.0.0'] }, 'None of the versions specified ["2.0.0"] are supported'],
    ['CSI 0.3 only', { ...CSI, supportedVersions: ['0.3.0'] }, 'highest supported version reported by driver is 0.3.0, must be v1.x'],
    ['no versions', { ...CSI, supportedVersions: [] }, 'Plugin returned an empty list for supported versions'],
  ])('refuses %s with Go\'s message through NotifyRegistrationStatus(false) and asks again every second', async (_name, info, message) => {
    const { actor, calls, socket, childState, clock } = start({ info });
    actor.send(runtimeUp);
    await settle();
    socket('plugin.socket.created');
    await settle(3);
    expect(childState()).toBe('retrying');
    const notified = calls.find((c) => c.startsWith('notify false'));
    expect(notified).toContain(message);
    expect(calls.some((c) => c.startsWith('nodeGetInfo') || c.startsWith('install'))).toBe(false);
    clock.increment(999);
    await settle(2);
    expect(calls.filter((c) => c.startsWith('getInfo'))).toHaveLength(1);
    clock.increment(1);
    await settle(3);
    expect(calls.filter((c) => c.startsWith('getInfo'))).toHaveLength(2);
  });

  it('retries a failed GetInfo after the reconciler period and then registers', async () => {
    const { actor, calls, socket, child, childState, clock } = start({ fail: { getInfo: 2 } });
    actor.send(runtimeUp);
    await settle();
    socket('plugin.socket.created');
    await settle(2);
    expect(childState()).toBe('retrying');
    expect(child()?.getSnapshot().context.lastError).toMatchObject({ code: 'KLT_ERR_PLUGIN_REGISTRATION' });
    clock.increment(1_000);
    await settle(2);
    expect(child()?.getSnapshot().context.failures).toBe(2);
    clock.increment(1_000);
    await settle(4);
    expect(childState()).toBe('registered');
    expect(verbs(calls)).toEqual(['getInfo', 'getInfo', ...REGISTERED]);
    // No notify for a plugin that never answered GetInfo.
    expect(calls.some((c) => c.startsWith('notify false'))).toBe(false);
  });

  it('backs off a socket that keeps failing: 500 ms doubling per failure in a row, never sooner than the reconciler\'s second', async () => {
    const { actor, calls, socket, clock } = start({ fail: { getInfo: 4 } });
    actor.send(runtimeUp);
    await settle();
    socket('plugin.socket.created');
    await settle(2);
    const tries = () => calls.filter((c) => c.startsWith('getInfo')).length;
    // Failures 1, 2: a second each (the back-off's 500 ms and 1 s); failure 3: 2 s; failure 4: 4 s.
    for (const [waitMs, expected] of [[1_000, 2], [1_000, 3], [1_999, 3], [1, 4], [3_999, 4], [1, 5]] as const) {
      clock.increment(waitMs);
      await settle(2);
      expect(tries()).toBe(expected);
    }
  });

  it('undoes a failed install, tells the plugin with Go\'s message, and registers it on the next try', async () => {
    const { actor, calls, socket, childState, clock } = start({ fail: { install: 1 } });
    actor.send(runtimeUp);
    await settle();
    socket('plugin.socket.created');
    await settle(5);
    expect(childState()).toBe('retrying');
    expect(verbs(calls)).toEqual(['getInfo', 'nodeGetInfo', 'install', 'uninstall', 'notify false']);
    expect(calls.at(-1)).toBe('notify false RegisterPlugin error -- plugin registration failed with err: error updating CSINode object with CSI driver node info: ECONNREFUSED');
    clock.increment(1_000);
    await settle(5);
    expect(childState()).toBe('registered');
  });

  it('tells the plugin when NodeGetInfo fails, and tries again', async () => {
    const { actor, calls, socket, childState, clock } = start({ fail: { nodeGetInfo: 1 } });
    actor.send(runtimeUp);
    await settle();
    socket('plugin.socket.created');
    await settle(4);
    expect(childState()).toBe('retrying');
    expect(verbs(calls)).toEqual(['getInfo', 'nodeGetInfo', 'notify false']);
    clock.increment(1_000);
    await settle(5);
    expect(childState()).toBe('registered');
  });

  it('keeps a driver registered whose NotifyRegistrationStatus(true) failed, as Go does', async () => {
    const { actor, socket, child, childState } = start({ fail: { notifyTrue: 1 } });
    actor.send(runtimeUp);
    await settle();
    socket('plugin.socket.created');
    await settle(4);
    expect(childState()).toBe('registered');
    expect(child()?.getSnapshot().context.lastError?.message).toContain('deadline exceeded');
  });

  it('deregisters a driver whose socket is removed, and stops its actor', async () => {
    const { actor, calls, socket, child } = start();
    actor.send(runtimeUp);
    await settle();
    socket('plugin.socket.created');
    await settle(4);
    socket('plugin.socket.removed');
    await settle(3);
    expect(calls.at(-1)).toBe(`uninstall ${DRIVER}`);
    expect(child()).toBeUndefined();
    expect(actor.getSnapshot().context.sockets).toEqual([]);
  });

  it('registers a driver again when its socket comes back after a removal', async () => {
    const { actor, calls, socket, childState } = start();
    actor.send(runtimeUp);
    await settle();
    socket('plugin.socket.created');
    await settle(4);
    socket('plugin.socket.removed');
    await settle(3);
    socket('plugin.socket.created');
    await settle(4);
    expect(childState()).toBe('registered');
    expect(verbs(calls)).toEqual([...REGISTERED, 'uninstall', ...REGISTERED]);
  });

  it('deregisters then registers again a socket re-created while registered (Go: a new timestamp)', async () => {
    const { actor, calls, socket, childState } = start();
    actor.send(runtimeUp);
    await settle();
    socket('plugin.socket.created');
    await settle(4);
    socket('plugin.socket.created');
    await settle(6);
    expect(childState()).toBe('registered');
    expect(verbs(calls)).toEqual([...REGISTERED, 'uninstall', ...REGISTERED]);
  });

  it('finishes an install under way when the socket goes, then deregisters it', async () => {
    const { actor, calls, socket, child, releases } = start({ holdInstall: true });
    actor.send(runtimeUp);
    await settle();
    socket('plugin.socket.created');
    await settle(3);
    expect(child()?.getSnapshot().value).toBe('installing');
    socket('plugin.socket.removed');
    await settle();
    releases.shift()!();
    await settle(5);
    expect(verbs(calls)).toEqual([...REGISTERED, 'uninstall']);
    expect(child()).toBeUndefined();
  });

  it('ends a socket removed while it was being retried, without a deregistration', async () => {
    const { actor, calls, socket, child } = start({ fail: { getInfo: 5 } });
    actor.send(runtimeUp);
    await settle();
    socket('plugin.socket.created');
    await settle(2);
    socket('plugin.socket.removed');
    await settle(2);
    expect(child()).toBeUndefined();
    expect(calls.some((c) => c.startsWith('uninstall'))).toBe(false);
  });

  it('retries a failed deregistration every period until it succeeds', async () => {
    const { actor, calls, socket, child, childState, clock } = start({ fail: { uninstall: 1 } });
    actor.send(runtimeUp);
    await settle();
    socket('plugin.socket.created');
    await settle(4);
    socket('plugin.socket.removed');
    await settle(2);
    expect(childState()).toBe('deregisterBackingOff');
    clock.increment(1_000);
    await settle(3);
    expect(calls.filter((c) => c.startsWith('uninstall'))).toHaveLength(2);
    expect(child()).toBeUndefined();
  });

  it('keeps one actor per socket: two sockets register side by side', async () => {
    const other = `${DIR}/sub/other-reg.sock`;
    const { actor, socket, childState } = start();
    actor.send(runtimeUp);
    await settle();
    socket('plugin.socket.created');
    socket('plugin.socket.created', other);
    await settle(4);
    expect(childState()).toBe('registered');
    expect(childState(other)).toBe('registered');
    expect(actor.getSnapshot().context.sockets).toEqual([SOCKET, other]);
  });

  it('makes the CSINode at start in cluster mode, backing off as Go does when the API server fails', async () => {
    const { actor, calls, clock } = start({ fail: { initialize: 2 } });
    await settle(2);
    expect(actor.getSnapshot().value).toMatchObject({ csiNode: 'backingOff' });
    clock.increment(csiNodeBackoffMs(1));
    await settle(2);
    expect(actor.getSnapshot().context.csiNodeAttempts).toBe(2);
    clock.increment(csiNodeBackoffMs(2));
    await settle(2);
    expect(actor.getSnapshot().value).toMatchObject({ csiNode: 'initialized' });
    expect(calls.filter((c) => c.startsWith('initializeCsiNode'))).toEqual(['initializeCsiNode node-1 1', 'initializeCsiNode node-1 1', 'initializeCsiNode node-1 1']);
  });

  it('backs off 15 ms × 6ⁿ, held at the sixth step', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map(csiNodeBackoffMs)).toEqual([15, 90, 540, 3_240, 19_440, 116_640, 116_640, 116_640]);
  });

  it('stays in failed when the watcher cannot start, the kubelet going on', async () => {
    const { actor } = start({ watchFails: true });
    actor.send(runtimeUp);
    await settle();
    expect(actor.getSnapshot().value).toMatchObject({ watcher: 'failed' });
    expect(actor.getSnapshot().context.lastError).toMatchObject({ code: 'KLT_ERR_HOST_IO' });
    expect(actor.getSnapshot().status).toBe('active');
  });
});

describe('pluginManagerMachine with a DRA plugin', () => {
  /** A DRA plugin's socket appeared and its first registration ran. */
  async function registeredDra(o: Parameters<typeof start>[0] = {}) {
    const world = start({ info: DRA, ...o });
    world.actor.send(runtimeUp);
    await settle();
    world.socket('plugin.socket.created');
    await settle(4);
    return world;
  }

  it('registers it: GetInfo, the plugin into the DRA registry on the first service it names, NotifyRegistrationStatus(true); no CSI step', async () => {
    const { calls, childState, toVolumeManager } = await registeredDra();
    expect(childState()).toBe('registered');
    expect(calls).toContain(`addDra ${DRA_DRIVER} ${SOCKET} v1beta1.DRAPlugin`);
    expect(verbs(calls)).toEqual(DRA_REGISTERED);
    expect(toVolumeManager).toEqual([]);
  });

  it('refuses it with Go\'s message when it names no DRAPlugin service, and tries again a period later', async () => {
    const { calls, childState, clock } = await registeredDra({ info: { ...DRA, supportedVersions: ['1.0.0'] } });
    expect(childState()).toBe('retrying');
    expect(calls).toContain(`notify false RegisterPlugin error -- plugin validation failed with err: invalid supported gRPC versions of DRA driver plugin ${DRA_DRIVER} at endpoint ${SOCKET}: none of services supported by the plugin (["1.0.0"]) are supported by the kubelet (["v1.DRAPlugin" "v1beta1.DRAPlugin"])`);
    clock.increment(1_000);
    await settle(2);
    expect(verbs(calls)).toEqual(['getInfo', 'notify false', 'getInfo', 'notify false']);
  });

  it('tells the plugin Go\'s registration failure when its driver has a plugin on that endpoint, and registers it on the next try', async () => {
    const { calls, childState, clock } = await registeredDra({ fail: { addDra: 1 } });
    expect(childState()).toBe('retrying');
    expect(calls).toContain(`notify false RegisterPlugin error -- plugin registration failed with err: endpoint ${SOCKET} already registered for DRA driver plugin ${DRA_DRIVER}`);
    clock.increment(1_000);
    await settle(4);
    expect(childState()).toBe('registered');
    expect(verbs(calls)).toEqual(['getInfo', 'addDra', 'notify false', ...DRA_REGISTERED]);
  });

  it('takes the plugin out of the DRA registry when its socket is removed, and stops its actor', async () => {
    const { actor, calls, socket, child } = await registeredDra();
    socket('plugin.socket.removed');
    await settle(3);
    expect(calls.at(-1)).toBe(`removeDra ${DRA_DRIVER} ${SOCKET}`);
    expect(calls.some((c) => c.startsWith('uninstall'))).toBe(false);
    expect(child()).toBeUndefined();
    expect(actor.getSnapshot().context.sockets).toEqual([]);
  });

  it('removes then registers again a plugin whose socket is re-created while registered', async () => {
    const { calls, socket, childState } = await registeredDra();
    socket('plugin.socket.created');
    await settle(6);
    expect(childState()).toBe('registered');
    expect(verbs(calls)).toEqual([...DRA_REGISTERED, 'removeDra', ...DRA_REGISTERED]);
  });

  it('retries a failed removal every period until it succeeds', async () => {
    const { calls, socket, child, childState, clock } = await registeredDra({ fail: { removeDra: 1 } });
    socket('plugin.socket.removed');
    await settle(2);
    expect(childState()).toBe('deregisterBackingOff');
    clock.increment(1_000);
    await settle(3);
    expect(calls.filter((c) => c.startsWith('removeDra'))).toHaveLength(2);
    expect(child()).toBeUndefined();
  });
});
