import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, SimulatedClock, type AnyEventObject } from 'xstate';
import type { DeviceInventoryEntry } from '../../src/domain/device-manager/devices.js';
import { deviceManagerMachine, type DeviceManagerEvent, type ServeRegistrationInput } from '../../src/machines/device-manager.machine.js';
import { devicePluginMachine, type ListAndWatchEvent, type ListAndWatchInput } from '../../src/machines/device-plugin.machine.js';
import { settle } from '../support/settle.js';

const DIR = '/var/lib/kubelet/device-plugins';
const R = 'example.com/resource';
const healthy = (id: string): DeviceInventoryEntry => ({ id, healthy: true, numaNodes: [] });

/** A fake world: the Registration server's and the streams' senders, what the node status and the checkpoint were told. */
function start(o: { checkpointResources?: string[] } = {}) {
  const clock = new SimulatedClock();
  let server: ((e: DeviceManagerEvent) => void) | null = null;
  const streams = new Map<string, (e: ListAndWatchEvent) => void>();
  const registered: Record<string, string[]>[] = [];
  const node: AnyEventObject[] = [];
  const machine = deviceManagerMachine.provide({
    actors: {
      serveRegistration: fromCallback<{ type: 'device.devices.registered'; registered: Record<string, string[]> }, ServeRegistrationInput>(({ sendBack, receive }) => {
        server = sendBack;
        receive((e) => registered.push(e.registered));
        return () => { server = null; };
      }),
      devicePlugin: devicePluginMachine.provide({
        actors: {
          listAndWatch: fromCallback<ListAndWatchEvent, ListAndWatchInput>(({ input, sendBack }) => {
            streams.set(input.socketPath, sendBack);
            return () => streams.delete(input.socketPath);
          }),
        },
      }),
    },
  });
  // The node status beside it, as a system member that records what it is told.
  const parent = createActor(createMachine({
    invoke: [
      { id: 'nodeStatus', systemId: 'nodeStatus', src: createMachine({ on: { '*': { actions: ({ event }) => { node.push(event); } } } }) },
      { id: 'deviceManager', systemId: 'deviceManager', src: machine, input: { dir: DIR, gracePeriodMs: 300_000, ...(o.checkpointResources ? { checkpointResources: o.checkpointResources } : {}) } },
    ],
  }), { clock });
  parent.start();
  const dm = parent.system.get('deviceManager') as ReturnType<typeof createActor<typeof deviceManagerMachine>>;
  const send = (e: DeviceManagerEvent) => {
    if (!server) throw new Error('the Registration server is not running');
    server(e);
  };
  const lastCounts = () => (node.filter((e) => e.type === 'node.devices.changed').at(-1) as { resources: Record<string, unknown> } | undefined)?.resources;
  return { dm, clock, send, streams, registered, lastCounts };
}

describe('deviceManagerMachine', () => {
  it('serves kubelet.sock only once the runtime is up', async () => {
    const { dm, send } = start();
    expect(dm.getSnapshot().value).toBe('waitingForRuntime');
    expect(() => send({ type: 'device.plugin.connected', resourceName: R, socketPath: `${DIR}/dp.1` })).toThrow();
    dm.send({ type: 'runtime.up' });
    await settle();
    expect(dm.getSnapshot().value).toBe('serving');
  });

  it('reports a plugin\'s listed devices to the node (capacity all, allocatable healthy) and to the checkpoint', async () => {
    const { dm, send, streams, registered, lastCounts } = start();
    dm.send({ type: 'runtime.up' });
    await settle();
    send({ type: 'device.plugin.connected', resourceName: R, socketPath: `${DIR}/dp.1` });
    await settle();
    streams.get(`${DIR}/dp.1`)!({ type: 'device.plugin.devices.listed', devices: [healthy('Dev-1'), { id: 'Dev-2', healthy: false, numaNodes: [] }] });
    await settle();
    expect(lastCounts()).toEqual({ [R]: { capacity: 2, allocatable: 1 } });
    expect(registered.at(-1)).toEqual({ [R]: ['Dev-1'] });
    expect(dm.getSnapshot().context.devices[R]).toHaveLength(2);
  });

  it('marks the devices unhealthy at once when the stream ends, and drops the resource (0 and 0) after the grace period', async () => {
    const { dm, send, streams, lastCounts, clock } = start();
    dm.send({ type: 'runtime.up' });
    await settle();
    send({ type: 'device.plugin.connected', resourceName: R, socketPath: `${DIR}/dp.1` });
    await settle();
    streams.get(`${DIR}/dp.1`)!({ type: 'device.plugin.devices.listed', devices: [healthy('Dev-1'), healthy('Dev-2')] });
    await settle();
    streams.get(`${DIR}/dp.1`)!({ type: 'device.plugin.stream.ended', error: null });
    await settle();
    expect(lastCounts()).toEqual({ [R]: { capacity: 2, allocatable: 0 } });
    clock.increment(299_999);
    await settle();
    expect(lastCounts()).toEqual({ [R]: { capacity: 2, allocatable: 0 } });
    clock.increment(1);
    await settle();
    expect(lastCounts()).toEqual({ [R]: { capacity: 0, allocatable: 0 } });
    expect(dm.getSnapshot().context.devices).toEqual({});
    expect(Object.keys(dm.getSnapshot().children)).toEqual(['serveRegistration']);
  });

  it('replaces the plugin of a resource that registers again, and ignores the old stream\'s news', async () => {
    const { dm, send, streams, lastCounts, clock } = start();
    dm.send({ type: 'runtime.up' });
    await settle();
    send({ type: 'device.plugin.connected', resourceName: R, socketPath: `${DIR}/dp.1` });
    await settle();
    const old = streams.get(`${DIR}/dp.1`)!;
    old({ type: 'device.plugin.devices.listed', devices: [healthy('Dev-1'), healthy('Dev-2')] });
    await settle();
    send({ type: 'device.plugin.connected', resourceName: R, socketPath: `${DIR}/dp.2` });
    await settle();
    expect(streams.has(`${DIR}/dp.1`)).toBe(false);
    // The old endpoint's devices stay until the new stream lists its own.
    expect(lastCounts()).toEqual({ [R]: { capacity: 2, allocatable: 2 } });
    streams.get(`${DIR}/dp.2`)!({ type: 'device.plugin.devices.listed', devices: [healthy('Dev-1')] });
    await settle();
    expect(lastCounts()).toEqual({ [R]: { capacity: 1, allocatable: 1 } });
    clock.increment(600_000);
    await settle();
    expect(lastCounts()).toEqual({ [R]: { capacity: 1, allocatable: 1 } });
  });

  it('keeps the checkpoint\'s resources with no device until their plugin registers, and drops them after the grace period', async () => {
    const { dm, send, streams, lastCounts, clock } = start({ checkpointResources: [R, 'example.com/other'] });
    dm.send({ type: 'runtime.up' });
    await settle();
    expect(lastCounts()).toEqual({ [R]: { capacity: 0, allocatable: 0 }, 'example.com/other': { capacity: 0, allocatable: 0 } });
    send({ type: 'device.plugin.connected', resourceName: R, socketPath: `${DIR}/dp.1` });
    await settle();
    streams.get(`${DIR}/dp.1`)!({ type: 'device.plugin.devices.listed', devices: [healthy('Dev-1'), healthy('Dev-2')] });
    await settle();
    expect(lastCounts()).toEqual({ [R]: { capacity: 2, allocatable: 2 }, 'example.com/other': { capacity: 0, allocatable: 0 } });
    clock.increment(300_000);
    await settle();
    expect(dm.getSnapshot().context.removed).toEqual(['example.com/other']);
    expect(lastCounts()).toEqual({ [R]: { capacity: 2, allocatable: 2 }, 'example.com/other': { capacity: 0, allocatable: 0 } });
    expect(Object.keys(dm.getSnapshot().context.plugins)).toEqual([R]);
  });

  it('goes to failed when kubelet.sock cannot be served', async () => {
    const { dm, send } = start();
    dm.send({ type: 'runtime.up' });
    await settle();
    send({ type: 'device.registration.failed', error: { code: 'KLT_ERR_DEVICE_PLUGIN', message: 'EACCES', retryable: false } });
    await settle();
    expect(dm.getSnapshot().value).toBe('failed');
  });
});
