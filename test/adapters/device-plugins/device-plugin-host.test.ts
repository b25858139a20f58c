/**
 * The device plugin adapter against a fake plugin (a gRPC DevicePlugin server on a unix socket, as
 * the upstream stub serves it): Register's checks and Go's errors, the dial before the answer, the
 * directory emptied of stale sockets, ListAndWatch, Allocate asked once and checkpointed,
 * PreStartContainer before every start when the plugin asks for it.
 */
import * as grpc from '@grpc/grpc-js';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDevicePluginHost } from '../../../src/adapters/device-plugins/device-plugin-host.js';
import { encodeContainerAllocateResponse, loadDevicePluginProto } from '../../../src/adapters/device-plugins/device-plugin-proto.js';
import { decodeDeviceCheckpoint, encodeDeviceCheckpoint } from '../../../src/domain/device-manager/checkpoint.js';
import { MAX_DEVICES_PER_RESOURCE } from '../../../src/domain/device-manager/device-list-limits.js';
import type { DeviceInventoryEntry } from '../../../src/domain/device-manager/devices.js';
import type { DevicePluginMetrics } from '../../../src/ports/device-plugins.js';

const R = 'example.com/resource';
let dir: string;
let servers: grpc.Server[];
let stops: (() => Promise<void>)[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dph-'));
  servers = [];
  stops = [];
});
afterEach(async () => {
  for (const stop of stops) await stop();
  for (const s of servers) s.forceShutdown();
  rmSync(dir, { recursive: true, force: true });
});

/** A fake plugin on `dir/<name>`, recording its calls. */
async function fakePlugin(name: string, o: { preStart?: boolean; answer?: (ids: string[]) => object; flood?: number; then?: object[] } = {}) {
  const calls: string[] = [];
  const server = new grpc.Server();
  servers.push(server);
  const unary = (method: string, answer: (req: Record<string, unknown>) => object) => (call: grpc.ServerUnaryCall<Record<string, unknown>, object>, cb: grpc.sendUnaryData<object>) => {
    calls.push(`${method} ${JSON.stringify(call.request)}`);
    cb(null, answer(call.request));
  };
  server.addService(loadDevicePluginProto().devicePlugin, {
    GetDevicePluginOptions: unary('GetDevicePluginOptions', () => ({ pre_start_required: o.preStart ?? false, get_preferred_allocation_available: false })),
    ListAndWatch: (call: grpc.ServerWritableStream<object, object>) => {
      calls.push('ListAndWatch');
      call.write({ devices: [{ ID: 'Dev-1', health: 'Healthy' }, { ID: 'Dev-2', health: 'Unhealthy', topology: { nodes: [{ ID: 0 }] } }] });
      // A plugin that floods: whole lists back to back, each one device longer.
      for (let n = 1; n <= (o.flood ?? 0); n++) call.write({ devices: Array.from({ length: n }, (_, i) => ({ ID: `F-${i}`, health: 'Healthy' })) });
      for (const devices of o.then ?? []) call.write({ devices });
    },
    Allocate: unary('Allocate', (req) => {
      const ids = (req.container_requests as { devices_ids: string[] }[])[0]!.devices_ids;
      if (o.answer) return { container_responses: [o.answer(ids)] };
      return { container_responses: [{ envs: { DEVICES: ids.join(',') }, mounts: ids.map((id) => ({ container_path: `/tmp/${id}`, host_path: `/tmp/${id}` })), devices: [{ container_path: '/dev/x', host_path: '/dev/null', permissions: 'rw' }], annotations: { a: 'b' } }] };
    }),
    GetPreferredAllocation: unary('GetPreferredAllocation', () => ({ container_responses: [{ deviceIDs: ['Dev-2'] }] })),
    PreStartContainer: unary('PreStartContainer', () => ({})),
  });
  await new Promise<void>((resolve, reject) => server.bindAsync(`unix://${join(dir, name)}`, grpc.ServerCredentials.createInsecure(), (e) => (e ? reject(e) : resolve())));
  return { calls };
}

function host() {
  const metrics: DevicePluginMetrics = { registrations: {}, allocDurations: {} };
  const errors: Record<string, unknown>[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => errors.push(JSON.parse(line) as Record<string, unknown>) });
  return { metrics, errors, h: createDevicePluginHost({ logger, nowMs: () => Date.now(), metrics }) };
}

/** A plugin's answer of `n` mounts, each its own path: 40,000 of them is about 1 MiB, well inside gRPC's 4 MiB. */
const mountsAnswer = (n: number) => ({ mounts: Array.from({ length: n }, (_, i) => ({ container_path: `/m/${i}`, host_path: `/h/${i}` })) });

/** A plugin registered and connected as `dp.1`. */
async function connected(h: ReturnType<typeof host>['h'], o: Parameters<typeof fakePlugin>[1] = {}) {
  await serve(h);
  const plugin = await fakePlugin('dp.1', o);
  expect(await register({ version: 'v1beta1', endpoint: 'dp.1', resource_name: R })).toBeNull();
  return plugin;
}

async function serve(h: ReturnType<typeof host>['h']) {
  const seen: string[] = [];
  const served = await h.serveRegistration(dir, {
    onRegisterReceived: (r, e, refusal) => seen.push(`received ${r} ${e} ${refusal ?? 'ok'}`),
    onConnected: (r, s) => seen.push(`connected ${r} ${s}`),
  });
  stops.push(() => served.stop());
  return seen;
}

/** Register on kubelet.sock, as a plugin does: the error's text, or null. */
function register(request: object): Promise<string | null> {
  const codecs = loadDevicePluginProto().registration.Register;
  const client = new grpc.Client(`unix:${join(dir, 'kubelet.sock')}`, grpc.credentials.createInsecure());
  return new Promise((resolve) => {
    client.makeUnaryRequest(codecs.path, codecs.requestSerialize as (v: object) => Buffer, codecs.responseDeserialize, request, (err) => {
      client.close();
      resolve(err ? err.details : null);
    });
  });
}

describe('the device plugin adapter', () => {
  it('empties the directory of everything but the checkpoint before serving kubelet.sock', async () => {
    writeFileSync(join(dir, 'dp.stale'), '');
    writeFileSync(join(dir, 'kubelet_internal_checkpoint'), '{}');
    await serve(host().h);
    expect(existsSync(join(dir, 'dp.stale'))).toBe(false);
    expect(existsSync(join(dir, 'kubelet.sock'))).toBe(true);
    expect(existsSync(join(dir, 'kubelet_internal_checkpoint'))).toBe(true);
  });

  it('refuses a version and a resource name with Go\'s errors, and a plugin it cannot dial', async () => {
    const { h, metrics } = host();
    const seen = await serve(h);
    expect(await register({ version: 'v1alpha1', endpoint: 'dp.1', resource_name: R })).toBe('requested API version "v1alpha1" is not supported by kubelet. Supported versions are ["v1beta1"]');
    expect(await register({ version: 'v1beta1', endpoint: 'dp.1', resource_name: 'cpu' })).toBe('the ResourceName "cpu" is invalid');
    expect(await register({ version: 'v1beta1', endpoint: 'dp.none', resource_name: R })).toMatch(/^failed to dial device plugin: /);
    expect(seen.filter((s) => s.startsWith('connected'))).toEqual([]);
    expect(metrics.registrations).toEqual({ [R]: 2, cpu: 1 });
  }, 20_000);

  it('connects a plugin, streams its devices, and asks Allocate once per container, checkpointed with its answer', async () => {
    const { h, metrics } = host();
    const seen = await serve(h);
    // Started after the kubelet, as the directory is emptied at its start.
    const plugin = await fakePlugin('dp.1', { preStart: true });
    expect(await register({ version: 'v1beta1', endpoint: 'dp.1', resource_name: R })).toBeNull();
    expect(seen).toEqual([`received ${R} dp.1 ok`, `connected ${R} ${join(dir, 'dp.1')}`]);
    const devices = await new Promise<DeviceInventoryEntry[]>((resolve) => {
      const stream = h.listAndWatch(R, join(dir, 'dp.1'), { onDevices: (d) => { stream.stop(); resolve(d); }, onEnded: () => {} });
    });
    expect(devices).toEqual([{ id: 'Dev-1', healthy: true, numaNodes: [] }, { id: 'Dev-2', healthy: false, numaNodes: [0] }]);
    h.setHeld({ u1: { c: { [R]: ['Dev-1'] } } });
    const runtime = await h.containerDevices('u1', 'c', { [R]: ['Dev-1'] });
    expect(runtime).toEqual({
      envs: { DEVICES: 'Dev-1' }, mounts: [{ containerPath: '/tmp/Dev-1', hostPath: '/tmp/Dev-1', readOnly: false }],
      devices: [{ containerPath: '/dev/x', hostPath: '/dev/null', permissions: 'rw' }], annotations: { a: 'b' }, cdiDevices: [],
    });
    await h.containerDevices('u1', 'c', { [R]: ['Dev-1'] });
    expect(plugin.calls.filter((c) => c.startsWith('Allocate'))).toHaveLength(1);
    expect(plugin.calls.filter((c) => c.startsWith('PreStartContainer'))).toEqual(['PreStartContainer {"devices_ids":["Dev-1"]}', 'PreStartContainer {"devices_ids":["Dev-1"]}']);
    expect(metrics.allocDurations[R]?.count).toBe(1);
    // The checkpoint is written behind the calls: polled until the answer is in.
    await vi.waitFor(() => {
      const checkpoint = decodeDeviceCheckpoint(readFileSync(join(dir, 'kubelet_internal_checkpoint'), 'utf8'));
      expect(checkpoint.ok && checkpoint.checkpoint.entries).toEqual([expect.objectContaining({ podUid: 'u1', containerName: 'c', resourceName: R, deviceIds: { '-1': ['Dev-1'] }, allocResp: expect.any(String) })]);
    });
    // A restarted kubelet reads it back: the answer is served without asking the plugin again.
    const again = host().h;
    await again.read(dir);
    expect(await again.containerDevices('u1', 'c', { [R]: ['Dev-1'] })).toEqual(runtime);
    expect(plugin.calls.filter((c) => c.startsWith('Allocate'))).toHaveLength(1);
  }, 20_000);

  it('takes the first list of a flooding plugin at once, then only the latest of each interval', async () => {
    const { h } = host();
    await serve(h);
    await fakePlugin('dp.1', { flood: 300 });
    expect(await register({ version: 'v1beta1', endpoint: 'dp.1', resource_name: R })).toBeNull();
    const lists: DeviceInventoryEntry[][] = [];
    const stream = h.listAndWatch(R, join(dir, 'dp.1'), { onDevices: (d) => lists.push(d), onEnded: () => {} });
    stops.push(async () => stream.stop());
    await vi.waitUntil(() => lists.at(-1)?.length === 300, { timeout: 10_000, interval: 50 });
    expect(lists.length).toBeLessThanOrEqual(4);
    expect(lists[0]?.map((d) => d.id)).toEqual(['Dev-1', 'Dev-2']);
  });

  it('refuses a device list over the bound, naming the resource and the count, and keeps the previous devices', async () => {
    const { h, errors } = host();
    const over = MAX_DEVICES_PER_RESOURCE + 1;
    const long = Array.from({ length: over }, (_, i) => ({ ID: `L-${i}`, health: 'Healthy' }));
    await connected(h, { then: [long, long] });
    const lists: DeviceInventoryEntry[][] = [];
    const stream = h.listAndWatch(R, join(dir, 'dp.1'), { onDevices: (d) => lists.push(d), onEnded: () => {} });
    stops.push(async () => stream.stop());
    await vi.waitUntil(() => errors.length > 0, { timeout: 10_000, interval: 20 });
    expect(errors).toEqual([expect.objectContaining({
      msg: 'Device plugin list refused', resource: R, devices: over, refused: 1,
      err: expect.objectContaining({ code: 'KLT_ERR_DEVICE_PLUGIN', message: `device plugin for resource "${R}" listed ${over} devices in one ListAndWatch answer, more than the ${MAX_DEVICES_PER_RESOURCE} allowed; the list is refused and the previous devices kept` }),
    })]);
    expect(lists.map((l) => l.map((d) => d.id))).toEqual([['Dev-1', 'Dev-2']]);
  }, 20_000);

  it('refuses an answer over the bounds, naming the resource and the count, and goes on allocating', async () => {
    const { h } = host();
    const plugin = await connected(h, { answer: (ids) => (ids.includes('Dev-1') ? mountsAnswer(40_000) : mountsAnswer(2)) });
    h.setHeld({ u1: { c: { [R]: ['Dev-1'] } }, u2: { c: { [R]: ['Dev-2'] } } });
    await expect(h.containerDevices('u1', 'c', { [R]: ['Dev-1'] })).rejects.toMatchObject({
      code: 'KLT_ERR_DEVICE_PLUGIN', message: `device plugin for resource "${R}" answered Allocate with 40000 mounts for one container, more than the 1024 allowed`,
    });
    expect((await h.containerDevices('u2', 'c', { [R]: ['Dev-2'] })).mounts).toHaveLength(2);
    // Nothing refused is cached: the next start asks again.
    await expect(h.containerDevices('u1', 'c', { [R]: ['Dev-1'] })).rejects.toMatchObject({ code: 'KLT_ERR_DEVICE_PLUGIN' });
    expect(plugin.calls.filter((c) => c.startsWith('Allocate'))).toHaveLength(3);
  }, 20_000);

  it('refuses an answer larger than gRPC\'s default receive limit, within the bounds on entries', async () => {
    const { h } = host();
    const long = 'x'.repeat(5_000);
    await connected(h, { answer: () => ({ mounts: Array.from({ length: 1_000 }, (_, i) => ({ container_path: `/m/${i}/${long}`, host_path: '/h' })) }) });
    h.setHeld({ u1: { c: { [R]: ['Dev-1'] } } });
    await expect(h.containerDevices('u1', 'c', { [R]: ['Dev-1'] })).rejects.toMatchObject({ code: 'KLT_ERR_DEVICE_PLUGIN', message: expect.stringMatching(/^Allocate failed: rpc error: code = ResourceExhausted desc = /) });
  }, 20_000);

  it('logs the conflicts between answers, keeping the first setting', async () => {
    const { h, errors } = host();
    await connected(h, { answer: () => ({ mounts: [{ container_path: '/m', host_path: '/a' }, { container_path: '/m', host_path: '/b' }] }) });
    h.setHeld({ u1: { c: { [R]: ['Dev-1'] } } });
    expect((await h.containerDevices('u1', 'c', { [R]: ['Dev-1'] })).mounts).toEqual([{ containerPath: '/m', hostPath: '/a', readOnly: false }]);
    expect(errors).toEqual([expect.objectContaining({ resourceName: R, kind: 'mount', key: '/m', kept: '/a', dropped: '/b' })]);
  }, 20_000);

  it('at restart, refuses a checkpointed answer over the bounds, naming the file, keeps the devices held and asks again', async () => {
    const allocResp = encodeContainerAllocateResponse(mountsAnswer(40_000)).toString('base64');
    writeFileSync(join(dir, 'kubelet_internal_checkpoint'), encodeDeviceCheckpoint({
      entries: [{ podUid: 'u1', containerName: 'c', resourceName: R, deviceIds: { '-1': ['Dev-1'] }, allocResp }], registeredDevices: { [R]: ['Dev-1'] },
    }));
    const { h, errors } = host();
    const checkpoint = await h.read(dir);
    expect(checkpoint?.entries.map((e) => e.deviceIds)).toEqual([{ '-1': ['Dev-1'] }]);
    expect(errors).toEqual([expect.objectContaining({
      path: join(dir, 'kubelet_internal_checkpoint'), podUid: 'u1', resourceName: R, reason: expect.stringContaining('answered Allocate with 40000 mounts'),
    })]);
    const plugin = await connected(h, { answer: () => mountsAnswer(1) });
    expect((await h.containerDevices('u1', 'c', { [R]: ['Dev-1'] })).mounts).toHaveLength(1);
    expect(plugin.calls.filter((c) => c.startsWith('Allocate'))).toHaveLength(1);
  }, 20_000);
});
