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
import { loadDevicePluginProto } from '../../../src/adapters/device-plugins/device-plugin-proto.js';
import { decodeDeviceCheckpoint } from '../../../src/domain/device-manager/checkpoint.js';
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
async function fakePlugin(name: string, o: { preStart?: boolean } = {}) {
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
    },
    Allocate: unary('Allocate', (req) => {
      const ids = (req.container_requests as { devices_ids: string[] }[])[0]!.devices_ids;
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
  return { metrics, h: createDevicePluginHost({ logger: pino({ level: 'silent' }), nowMs: () => Date.now(), metrics }) };
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
});
