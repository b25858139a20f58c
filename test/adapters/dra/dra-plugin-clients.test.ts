/**
 * The DRA plugin client against a fake DRA plugin on a real unix socket: the service chosen at
 * registration is the one called, answers are read by claim uid, and an answer over the bounds or
 * a failed call is refused with an error naming the driver, its endpoint and the call.
 */
import * as grpc from '@grpc/grpc-js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { DRA_MAX_ANSWER_BYTES, MAX_DEVICES_PER_CLAIM } from '../../../src/adapters/dra/dra-answer-bounds.js';
import { createDraDriverRegistry } from '../../../src/adapters/dra/dra-driver-registry.js';
import { createDraPluginClients, DRA_CALL_TIMEOUT_MS } from '../../../src/adapters/dra/dra-plugin-clients.js';
import type { DraPluginService } from '../../../src/domain/dra/plugin-services.js';
import type { DraPluginClients } from '../../../src/ports/dra-plugins.js';
import { startFakeDraPlugin, type DraHandler, type FakeDraPlugin } from '../../support/fake-dra-plugin.js';

const DRIVER = 'gpu.example.com';
const A = { namespace: 'default', uid: 'uid-a', name: 'a' };
const B = { namespace: 'default', uid: 'uid-b', name: 'b' };
/** What an error about an answer may come to: its own text and the endpoint, never the answer. */
const MAX_ERROR_CHARS = 1024;

const device = (name: string) => ({ request_names: ['r'], pool_name: 'pool', device_name: name, cdi_device_ids: [`example.com/gpu=${name}`] });

let plugin: FakeDraPlugin | undefined;
let clients: DraPluginClients | undefined;
afterEach(async () => {
  clients?.close();
  await plugin?.dispose();
  plugin = clients = undefined;
});

/** A plugin serving both services with the same handlers, registered on `service`. */
async function start(service: DraPluginService, prepare: DraHandler, unprepare: DraHandler = () => ({ claims: {} })) {
  const handlers = { NodePrepareResources: prepare, NodeUnprepareResources: unprepare };
  plugin = await startFakeDraPlugin({ name: DRIVER, supportedVersions: [service], serves: { 'v1.DRAPlugin': handlers, 'v1beta1.DRAPlugin': handlers } });
  const registry = createDraDriverRegistry();
  registry.add({ driverName: DRIVER, endpoint: plugin.socketPath, service });
  clients = createDraPluginClients(registry);
  return { plugin, client: clients.get(DRIVER) };
}

describe('createDraPluginClients', () => {
  it('waits Go\'s 45 s for a DRA plugin\'s answer', () => {
    expect(DRA_CALL_TIMEOUT_MS).toBe(45_000);
  });

  it.each(['v1.DRAPlugin', 'v1beta1.DRAPlugin'] as const)('calls the plugin on the service it was registered with (%s), sending every claim', async (service) => {
    let asked: unknown;
    const { plugin, client } = await start(service, (request) => {
      asked = request.claims;
      return { claims: { [A.uid]: { devices: [device('gpu-0')] }, [B.uid]: { error: 'no such device' } } };
    });
    expect(await client.nodePrepareResources([A, B])).toEqual(new Map<string, unknown>([
      [A.uid, { devices: [{ requestNames: ['r'], poolName: 'pool', deviceName: 'gpu-0', cdiDeviceIds: ['example.com/gpu=gpu-0'] }] }],
      [B.uid, { error: 'no such device' }],
    ]));
    expect(asked).toEqual([A, B]);
    expect(plugin.calls).toEqual([`${service} NodePrepareResources`]);
  });

  it('leaves out the answer to a claim the plugin was not asked about', async () => {
    const { client } = await start('v1.DRAPlugin', () => ({ claims: {} }), () => ({ claims: { 'uid-other': { error: 'x' }, [A.uid]: {} } }));
    expect(await client.nodeUnprepareResources([A, B])).toEqual(new Map([[A.uid, { error: '' }]]));
  });

  it('refuses an answer over the receive limit with a short error naming the driver, its endpoint and the call', async () => {
    const big = Array.from({ length: 100 }, (_, i) => ({ ...device(`gpu-${i}`), cdi_device_ids: ['x'.repeat(DRA_MAX_ANSWER_BYTES / 50)] }));
    const { plugin, client } = await start('v1.DRAPlugin', () => ({ claims: { [A.uid]: { devices: big } } }));
    const error = await client.nodePrepareResources([A]).catch((e: Error) => e);
    expect(error).toMatchObject({
      code: 'KLT_ERR_DRA_PLUGIN',
      message: expect.stringMatching(new RegExp(`^DRA driver ${DRIVER} at endpoint ${plugin.socketPath} answered NodePrepareResources with more than the ${DRA_MAX_ANSWER_BYTES} bytes taken: rpc error: code = ResourceExhausted desc = Received message larger than max \\(\\d+ vs ${DRA_MAX_ANSWER_BYTES}\\)$`)),
    });
    expect((error as Error).message.length).toBeLessThan(MAX_ERROR_CHARS);
  });

  it('refuses an answer with more devices for a claim than the bound', async () => {
    const many = Array.from({ length: MAX_DEVICES_PER_CLAIM + 1 }, (_, i) => ({ device_name: `d${i}` }));
    const { plugin, client } = await start('v1.DRAPlugin', () => ({ claims: { [A.uid]: { devices: many } } }));
    await expect(client.nodePrepareResources([A])).rejects.toMatchObject({
      code: 'KLT_ERR_DRA_PLUGIN',
      message: `DRA driver ${DRIVER} at endpoint ${plugin.socketPath} answered NodePrepareResources with ${MAX_DEVICES_PER_CLAIM + 1} devices for one claim, more than the ${MAX_DEVICES_PER_CLAIM} taken`,
    });
  });

  it('refuses an answer for more claims than were asked', async () => {
    const { client } = await start('v1.DRAPlugin', () => ({ claims: { a: {}, b: {}, c: {} } }));
    await expect(client.nodePrepareResources([A])).rejects.toMatchObject({ code: 'KLT_ERR_DRA_PLUGIN', message: expect.stringContaining('answered NodePrepareResources with 3 claims, more than the 1 taken') });
  });

  it('reports a failed call with gRPC\'s status as Go prints it, naming the driver and its endpoint', async () => {
    const { plugin, client } = await start('v1.DRAPlugin', () => {
      throw Object.assign(new Error('boom'), { code: grpc.status.INTERNAL, details: 'boom' });
    });
    await expect(client.nodePrepareResources([A])).rejects.toMatchObject({
      code: 'KLT_ERR_DRA_PLUGIN',
      message: `DRA driver ${DRIVER} at endpoint ${plugin.socketPath}: NodePrepareResources: rpc error: code = Internal desc = boom`,
    });
  });

  it('refuses a driver that is not registered, or no driver, with Go\'s messages', () => {
    const none = createDraPluginClients(createDraDriverRegistry());
    expect(() => none.get(DRIVER)).toThrow(expect.objectContaining({ code: 'KLT_ERR_DRA_PLUGIN', message: `DRA driver ${DRIVER} is not registered` }));
    expect(() => none.get('')).toThrow(expect.objectContaining({ code: 'KLT_ERR_DRA_PLUGIN', message: 'DRA driver name is empty' }));
  });

  it('watches each registered plugin\'s connection and tells the registry when it goes down and when the plugin is back on its socket', async () => {
    const handlers = { NodePrepareResources: () => ({ claims: {} }), NodeUnprepareResources: () => ({ claims: {} }) };
    const options = { name: DRIVER, supportedVersions: ['v1.DRAPlugin'], serves: { 'v1.DRAPlugin': handlers } };
    const dir = mkdtempSync(join(tmpdir(), 'kts-dra-conn-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const socketPath = join(dir, 'dra.sock');
    plugin = await startFakeDraPlugin({ ...options, socketPath });
    const registry = createDraDriverRegistry();
    const heard: boolean[] = [];
    registry.onChange((driver) => heard.push(registry.usable(driver)));
    registry.add({ driverName: DRIVER, endpoint: socketPath, service: 'v1.DRAPlugin' });
    clients = createDraPluginClients(registry);
    await vi.waitFor(() => expect(registry.usable(DRIVER)).toBe(true), { timeout: 10_000 });

    // Stopped without removing its registration: only the connection tells the plugin is gone.
    await plugin.dispose();
    await vi.waitFor(() => expect(registry.usable(DRIVER)).toBe(false), { timeout: 10_000 });
    plugin = await startFakeDraPlugin({ ...options, socketPath });
    await vi.waitFor(() => expect(registry.usable(DRIVER)).toBe(true), { timeout: 20_000 });
    expect(heard).toEqual([false, true, false, true]);
  }, 40_000);
});
