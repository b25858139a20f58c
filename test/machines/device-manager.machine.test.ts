import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createActor, createMachine, SimulatedClock, type AnyEventObject } from 'xstate';
import { createDeviceManagerActors } from '../../src/actors/device-manager/device-manager-actors.js';
import { applyDeviceInventoryChanges } from '../../src/domain/device-manager/device-list-changes.js';
import { healthyDeviceIds, type DeviceInventoryEntry } from '../../src/domain/device-manager/devices.js';
import type { DevicesChangedEvent } from '../../src/domain/resource-managers/device-inventory.js';
import { deviceManagerMachine } from '../../src/machines/device-manager.machine.js';
import { devicePluginMachine } from '../../src/machines/device-plugin.machine.js';
import type { DevicePluginHost, DeviceStreamHandlers, RegistrationHandlers } from '../../src/ports/device-plugins.js';
import { settle } from '../support/settle.js';

const DIR = '/var/lib/kubelet/device-plugins';
const R = 'example.com/resource';
const healthy = (id: string): DeviceInventoryEntry => ({ id, healthy: true, numaNodes: [] });
const unhealthy = (id: string): DeviceInventoryEntry => ({ id, healthy: false, numaNodes: [] });

/**
 * The machines with their real effects over a fake host: the Registration server's and the
 * streams' handlers, what the checkpoint, the node status and the syncLoop were told. The syncLoop
 * here holds the devices as it does, from the changes it is told.
 */
function start(o: { checkpointResources?: string[]; refuseToServe?: boolean } = {}) {
  const clock = new SimulatedClock();
  let server: RegistrationHandlers | null = null;
  const streams = new Map<string, DeviceStreamHandlers>();
  const registered: Record<string, string[]>[] = [];
  const node: AnyEventObject[] = [];
  const toSyncLoop: DevicesChangedEvent[] = [];
  let syncLoopDevices: Record<string, DeviceInventoryEntry[]> = {};
  const host: DevicePluginHost = {
    serveRegistration: async (_dir, handlers) => {
      if (o.refuseToServe) throw new Error('EACCES');
      server = handlers;
      return { stop: async () => { server = null; } };
    },
    listAndWatch: (_resource, socketPath, handlers) => {
      streams.set(socketPath, handlers);
      return { stop: () => streams.delete(socketPath) };
    },
    setRegistered: (r) => registered.push(r),
  };
  const effects = createDeviceManagerActors({ host, logger: pino({ level: 'silent' }) });
  const machine = deviceManagerMachine.provide({
    actors: { serveRegistration: effects.serveRegistration, devicePlugin: devicePluginMachine.provide({ actors: { listAndWatch: effects.listAndWatch } }) },
  });
  // The node status and the syncLoop beside it, as system members that record what they are told.
  const parent = createActor(createMachine({
    invoke: [
      { id: 'nodeStatus', systemId: 'nodeStatus', src: createMachine({ on: { '*': { actions: ({ event }) => { node.push(event); } } } }) },
      {
        id: 'syncLoop', systemId: 'syncLoop',
        src: createMachine({
          on: {
            'devices.changed': {
              actions: ({ event }) => {
                toSyncLoop.push(event as DevicesChangedEvent);
                syncLoopDevices = applyDeviceInventoryChanges(syncLoopDevices, (event as DevicesChangedEvent).changes);
              },
            },
          },
        }),
      },
      { id: 'deviceManager', systemId: 'deviceManager', src: machine, input: { dir: DIR, gracePeriodMs: 300_000, ...(o.checkpointResources ? { checkpointResources: o.checkpointResources } : {}) } },
    ],
  }), { clock });
  parent.start();
  const dm = parent.system.get('deviceManager') as ReturnType<typeof createActor<typeof deviceManagerMachine>>;
  const serving = () => {
    if (!server) throw new Error('the Registration server is not running');
    return server;
  };
  const connect = async (socketPath: string) => {
    serving().onConnected(R, socketPath);
    await settle();
  };
  /** The plugin on `socketPath` answers ListAndWatch with the whole list `devices`. */
  const list = async (socketPath: string, devices: DeviceInventoryEntry[]) => {
    streams.get(socketPath)!.onDevices(devices);
    await settle();
  };
  const lastCounts = () => (node.filter((e) => e.type === 'node.devices.changed').at(-1) as { resources: Record<string, unknown> } | undefined)?.resources;
  /** The device manager's devices; the syncLoop and the checkpoint, told only changes, hold the same. */
  const devices = () => {
    const held = dm.getSnapshot().context.devices;
    expect(syncLoopDevices).toEqual(held);
    expect(registered.at(-1)).toEqual(healthyDeviceIds(held));
    return held;
  };
  return { dm, clock, serving, connect, list, streams, toSyncLoop, devices, lastCounts };
}

describe('deviceManagerMachine', () => {
  it('serves kubelet.sock only once the runtime is up, and tells the syncLoop nothing when it starts with no checkpoint', async () => {
    const { dm, serving, toSyncLoop, lastCounts } = start();
    expect(dm.getSnapshot().value).toBe('waitingForRuntime');
    await settle();
    expect(() => serving()).toThrow();
    dm.send({ type: 'runtime.up' });
    await settle();
    expect(dm.getSnapshot().value).toBe('serving');
    expect(() => serving()).not.toThrow();
    expect(toSyncLoop).toEqual([]);
    expect(lastCounts()).toEqual({});
  });

  it('reports a plugin\'s listed devices to the node (capacity all, allocatable healthy) and to the checkpoint', async () => {
    const { dm, connect, list, devices, lastCounts } = start();
    dm.send({ type: 'runtime.up' });
    await settle();
    await connect(`${DIR}/dp.1`);
    await list(`${DIR}/dp.1`, [healthy('Dev-1'), unhealthy('Dev-2')]);
    expect(lastCounts()).toEqual({ [R]: { capacity: 2, allocatable: 1 } });
    expect(devices()).toEqual({ [R]: [healthy('Dev-1'), unhealthy('Dev-2')] });
  });

  it('follows each answer from the changes it carries: a health flip, a device gone, one added', async () => {
    const { dm, connect, list, devices, lastCounts, toSyncLoop } = start();
    dm.send({ type: 'runtime.up' });
    await settle();
    await connect(`${DIR}/dp.1`);
    await list(`${DIR}/dp.1`, [healthy('Dev-1'), healthy('Dev-2'), healthy('Dev-3')]);
    await list(`${DIR}/dp.1`, [healthy('Dev-1'), unhealthy('Dev-2'), healthy('Dev-3')]);
    expect(toSyncLoop.at(-1)!.changes).toEqual({ [R]: { upserted: [unhealthy('Dev-2')], removed: [] } });
    expect(lastCounts()).toEqual({ [R]: { capacity: 3, allocatable: 2 } });
    await list(`${DIR}/dp.1`, [unhealthy('Dev-2'), healthy('Dev-3'), healthy('Dev-4')]);
    expect(toSyncLoop.at(-1)!.changes).toEqual({ [R]: { upserted: [healthy('Dev-4')], removed: ['Dev-1'] } });
    expect(devices()).toEqual({ [R]: [unhealthy('Dev-2'), healthy('Dev-3'), healthy('Dev-4')] });
  });

  it('is told nothing of an answer that lists the same devices again', async () => {
    const { dm, connect, list, toSyncLoop } = start();
    dm.send({ type: 'runtime.up' });
    await settle();
    await connect(`${DIR}/dp.1`);
    await list(`${DIR}/dp.1`, [healthy('Dev-1'), healthy('Dev-2')]);
    const told = toSyncLoop.length;
    await list(`${DIR}/dp.1`, [healthy('Dev-2'), healthy('Dev-1')]);
    expect(toSyncLoop).toHaveLength(told);
  });

  it('marks the devices unhealthy at once when the stream ends, and drops the resource (0 and 0) after the grace period', async () => {
    const { dm, connect, list, streams, devices, lastCounts, clock } = start();
    dm.send({ type: 'runtime.up' });
    await settle();
    await connect(`${DIR}/dp.1`);
    await list(`${DIR}/dp.1`, [healthy('Dev-1'), healthy('Dev-2')]);
    streams.get(`${DIR}/dp.1`)!.onEnded(null);
    await settle();
    expect(lastCounts()).toEqual({ [R]: { capacity: 2, allocatable: 0 } });
    expect(devices()).toEqual({ [R]: [unhealthy('Dev-1'), unhealthy('Dev-2')] });
    clock.increment(299_999);
    await settle();
    expect(lastCounts()).toEqual({ [R]: { capacity: 2, allocatable: 0 } });
    clock.increment(1);
    await settle();
    expect(lastCounts()).toEqual({ [R]: { capacity: 0, allocatable: 0 } });
    expect(devices()).toEqual({});
    expect(Object.keys(dm.getSnapshot().children)).toEqual(['serveRegistration']);
  });

  it('replaces the plugin of a resource that registers again: the new stream\'s first answer replaces the old devices, and the old stream\'s news is ignored', async () => {
    const { dm, connect, list, streams, devices, lastCounts, clock, toSyncLoop } = start();
    dm.send({ type: 'runtime.up' });
    await settle();
    await connect(`${DIR}/dp.1`);
    const old = streams.get(`${DIR}/dp.1`)!;
    await list(`${DIR}/dp.1`, [healthy('Dev-1'), healthy('Dev-2')]);
    await connect(`${DIR}/dp.2`);
    expect(streams.has(`${DIR}/dp.1`)).toBe(false);
    // The old endpoint's devices stay until the new stream lists its own.
    expect(lastCounts()).toEqual({ [R]: { capacity: 2, allocatable: 2 } });
    await list(`${DIR}/dp.2`, [healthy('Dev-2'), healthy('Dev-3')]);
    expect(devices()).toEqual({ [R]: [healthy('Dev-2'), healthy('Dev-3')] });
    old.onDevices([healthy('Dev-9')]);
    await settle();
    expect(lastCounts()).toEqual({ [R]: { capacity: 2, allocatable: 2 } });
    const told = toSyncLoop.length;
    // The old endpoint's grace period ends: it is stale, nothing changes and nothing is told.
    clock.increment(600_000);
    await settle();
    expect(lastCounts()).toEqual({ [R]: { capacity: 2, allocatable: 2 } });
    expect(toSyncLoop).toHaveLength(told);
  });

  it('takes an empty first answer of a new stream: the old endpoint\'s devices go', async () => {
    const { dm, connect, list, streams, devices, lastCounts } = start();
    dm.send({ type: 'runtime.up' });
    await settle();
    await connect(`${DIR}/dp.1`);
    await list(`${DIR}/dp.1`, [healthy('Dev-1')]);
    streams.get(`${DIR}/dp.1`)!.onEnded(null);
    await settle();
    await connect(`${DIR}/dp.2`);
    await list(`${DIR}/dp.2`, []);
    expect(lastCounts()).toEqual({ [R]: { capacity: 0, allocatable: 0 } });
    expect(devices()).toEqual({ [R]: [] });
  });

  it('keeps the checkpoint\'s resources with no device until their plugin registers, and drops them after the grace period', async () => {
    const { dm, connect, list, devices, lastCounts, clock } = start({ checkpointResources: [R, 'example.com/other'] });
    dm.send({ type: 'runtime.up' });
    await settle();
    expect(lastCounts()).toEqual({ [R]: { capacity: 0, allocatable: 0 }, 'example.com/other': { capacity: 0, allocatable: 0 } });
    expect(devices()).toEqual({ [R]: [], 'example.com/other': [] });
    await connect(`${DIR}/dp.1`);
    await list(`${DIR}/dp.1`, [healthy('Dev-1'), healthy('Dev-2')]);
    expect(lastCounts()).toEqual({ [R]: { capacity: 2, allocatable: 2 }, 'example.com/other': { capacity: 0, allocatable: 0 } });
    clock.increment(300_000);
    await settle();
    expect(dm.getSnapshot().context.removed).toEqual(['example.com/other']);
    expect(lastCounts()).toEqual({ [R]: { capacity: 2, allocatable: 2 }, 'example.com/other': { capacity: 0, allocatable: 0 } });
    expect(Object.keys(dm.getSnapshot().context.plugins)).toEqual([R]);
    expect(devices()).toEqual({ [R]: [healthy('Dev-1'), healthy('Dev-2')] });
  });

  it('goes to failed when kubelet.sock cannot be served', async () => {
    const { dm } = start({ refuseToServe: true });
    dm.send({ type: 'runtime.up' });
    await settle();
    expect(dm.getSnapshot().value).toBe('failed');
  });
});
