import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createActor, createMachine, type AnyActorLogic, type AnyEventObject } from 'xstate';
import { createDeviceManagerActors } from '../../../src/actors/device-manager/device-manager-actors.js';
import type { DeviceInventoryEntry } from '../../../src/domain/device-manager/devices.js';
import type { DevicePluginHost, DeviceStreamHandlers, RegistrationHandlers } from '../../../src/ports/device-plugins.js';
import { settle } from '../../support/settle.js';

const R = 'example.com/resource';
const SOCKET = '/var/lib/kubelet/device-plugins/dp.sock';
const dev = (id: string, healthy = true): DeviceInventoryEntry => ({ id, healthy, numaNodes: [] });

/** A host whose streams and Registration server the test drives, recording the checkpoint's registered devices. */
function world() {
  let stream: DeviceStreamHandlers | null = null;
  let server: RegistrationHandlers | null = null;
  const registered: Record<string, string[]>[] = [];
  const host: DevicePluginHost = {
    serveRegistration: async (_dir, handlers) => {
      server = handlers;
      return { stop: async () => {} };
    },
    listAndWatch: (_resource, _socketPath, handlers) => {
      stream = handlers;
      return { stop: () => { stream = null; } };
    },
    setRegistered: (r) => registered.push(r),
  };
  const effects = createDeviceManagerActors({ host, logger: pino({ level: 'silent' }) });
  /** The effect invoked by a machine that records what it sends back. */
  const run = (logic: AnyActorLogic, input: unknown) => {
    const received: AnyEventObject[] = [];
    const actor = createActor(createMachine({ invoke: { id: 'effect', src: logic, input }, on: { '*': { actions: ({ event }) => { received.push(event); } } } })).start();
    return { actor, received };
  };
  return { effects, run, registered, stream: () => stream!, server: () => server! };
}

describe('listAndWatch', () => {
  it('sends a stream\'s first answer as every device upserted, then each later answer as its changes', () => {
    const { effects, run, stream } = world();
    const { received } = run(effects.listAndWatch, { resourceName: R, socketPath: SOCKET });
    stream().onDevices([dev('a'), dev('b'), dev('c')]);
    stream().onDevices([dev('a'), dev('b', false), dev('c')]);
    stream().onDevices([dev('b', false), dev('c')]);
    expect(received).toEqual([
      { type: 'device.plugin.devices.changed', upserted: [dev('a'), dev('b'), dev('c')], removed: [] },
      { type: 'device.plugin.devices.changed', upserted: [dev('b', false)], removed: [] },
      { type: 'device.plugin.devices.changed', upserted: [], removed: ['a'] },
    ]);
  });

  it('sends nothing for an answer that lists the same devices as the one before', () => {
    const { effects, run, stream } = world();
    const { received } = run(effects.listAndWatch, { resourceName: R, socketPath: SOCKET });
    stream().onDevices([dev('a'), dev('b', false)]);
    stream().onDevices([dev('a'), dev('b', false)]);
    expect(received).toHaveLength(1);
  });

  it('sends a first answer that lists no device, so it replaces what the resource had', () => {
    const { effects, run, stream } = world();
    const { received } = run(effects.listAndWatch, { resourceName: R, socketPath: SOCKET });
    stream().onDevices([]);
    stream().onDevices([]);
    expect(received).toEqual([{ type: 'device.plugin.devices.changed', upserted: [], removed: [] }]);
  });

  it('starts a new stream from no device', () => {
    const { effects, run, stream } = world();
    const first = run(effects.listAndWatch, { resourceName: R, socketPath: SOCKET });
    stream().onDevices([dev('a'), dev('b')]);
    first.actor.stop();
    const second = run(effects.listAndWatch, { resourceName: R, socketPath: SOCKET });
    stream().onDevices([dev('a'), dev('b')]);
    expect(second.received).toEqual([{ type: 'device.plugin.devices.changed', upserted: [dev('a'), dev('b')], removed: [] }]);
  });

  it('tells the stream\'s end', () => {
    const { effects, run, stream } = world();
    const { received } = run(effects.listAndWatch, { resourceName: R, socketPath: SOCKET });
    stream().onEnded(new Error('gone'));
    expect(received).toEqual([{ type: 'device.plugin.stream.ended', error: expect.objectContaining({ message: 'gone' }) }]);
  });
});

describe('serveRegistration', () => {
  it('gives the checkpoint the healthy ids of the devices the changes it is told add up to', async () => {
    const { effects, run, registered, server } = world();
    const { actor, received } = run(effects.serveRegistration, { dir: '/d' });
    await settle();
    server().onConnected(R, SOCKET);
    expect(received).toEqual([{ type: 'device.plugin.connected', resourceName: R, socketPath: SOCKET }]);
    const effect = actor.getSnapshot().children.effect!;
    effect.send({ type: 'device.devices.registered', changes: { [R]: { upserted: [dev('a'), dev('b')], removed: [] }, other: { upserted: [], removed: [] } } });
    effect.send({ type: 'device.devices.registered', changes: { [R]: { upserted: [dev('a', false)], removed: [] } } });
    effect.send({ type: 'device.devices.registered', changes: { other: null } });
    expect(registered).toEqual([{ [R]: ['a', 'b'], other: [] }, { [R]: ['b'], other: [] }, { [R]: ['b'] }]);
  });
});
