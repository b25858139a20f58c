import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FrontBounds } from '../../../src/adapters/h2/authority-proxy.js';
import { startPodResourcesServer } from '../../../src/adapters/pod-resources/server.js';
import { listAnswer, type PodResourcesState } from '../../../src/domain/pod-resources/answers.js';
import { indexState } from '../../../src/domain/pod-resources/state-index.js';
import { noPodResourcesRequests } from '../../../src/domain/pod-resources/request-metrics.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import { capturedLog, expectConnectionBound, expectPrefaceTimeout } from '../../support/front-connections.js';
import { devicesHeld, podResourcesClient } from '../../support/pod-resources-client.js';

const logger = pino({ level: 'silent' });
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const pod = (uid: string, name: string): Pod => ({ metadata: { uid, name, namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'pause' }] } });

/** A node with two devices and two CPUs to give; pod `gpu` holds Dev-2 and CPU 1. */
const STATE: PodResourcesState = {
  pods: [{ pod: pod('u1', 'gpu'), active: true }, { pod: pod('u2', 'ended'), active: false }],
  assignments: { u1: { app: { devices: { 'example.com/resource': ['Dev-2'] }, cpus: [1] } } },
  allocatable: { devices: { 'example.com/resource': [{ id: 'Dev-1', healthy: true, numaNodes: [0] }, { id: 'Dev-2', healthy: true, numaNodes: [0] }] }, cpus: [1], memory: [{ numaNode: 0, type: 'memory', bytes: 1 << 30 }] },
};

interface ServingOptions {
  getEnabled?: boolean;
  nowMs?: () => number;
  leftover?: boolean;
  bounds?: FrontBounds;
  builders?: { index: typeof indexState; list: typeof listAnswer };
  log?: pino.Logger;
}

async function serving(opts: ServingOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'podres-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const socketPath = join(dir, 'pod-resources', 'kubelet.sock');
  if (opts.leftover) {
    mkdirSync(join(dir, 'pod-resources'));
    writeFileSync(socketPath, 'left by an earlier run');
  }
  const requests = noPodResourcesRequests();
  const server = await startPodResourcesServer({
    socketPath, source: { state: () => STATE }, requests, logger: opts.log ?? logger,
    clock: { now: opts.nowMs ?? (() => 0) }, getEnabled: opts.getEnabled ?? true, useActivePods: true,
    ...(opts.bounds ? { connectionBounds: opts.bounds } : {}),
    ...(opts.builders ? { answerBuilders: opts.builders } : {}),
  });
  cleanups.push(() => server.close());
  const client = podResourcesClient(socketPath);
  cleanups.push(() => client.close());
  return { socketPath, requests, client, server };
}

const failureOf = (p: Promise<unknown>) => p.then(() => { throw new Error('the call succeeded'); }, (err: grpc.ServiceError) => ({ code: err.code, details: err.details }));

describe('startPodResourcesServer', () => {
  it('makes its socket\'s directory 0750 under umask 000, so other users cannot reach the socket', async () => {
    const previous = process.umask(0);
    let socketPath: string;
    try {
      ({ socketPath } = await serving());
    } finally {
      process.umask(previous);
    }
    expect(statSync(dirname(socketPath)).mode & 0o777).toBe(0o750);
  });

  it('serves List over its unix socket: each active pod, its devices with their NUMA node and its exclusive CPUs', async () => {
    const { client, socketPath, server } = await serving();
    expect(server.address).toBe(`unix://${socketPath}`);
    expect(statSync(socketPath).isSocket()).toBe(true);
    const list = await client.list();
    expect(list.pod_resources).toEqual([{
      name: 'gpu', namespace: 'default',
      containers: [{ name: 'app', devices: [{ resource_name: 'example.com/resource', device_ids: ['Dev-2'], topology: { nodes: [{ ID: '0' }] } }], cpu_ids: ['1'], memory: [], dynamic_resources: [] }],
    }]);
  });

  it('answers which container holds which device in one call of the test helper', async () => {
    const { socketPath } = await serving();
    expect(await devicesHeld(socketPath, 'example.com/resource')).toEqual({ 'default/gpu/app': ['Dev-2'] });
  });

  it('serves GetAllocatableResources: every healthy device, the CPUs and the memory the node can give', async () => {
    const { client } = await serving();
    const got = await client.allocatable();
    expect(got.devices.map((d) => d.device_ids[0])).toEqual(['Dev-1', 'Dev-2']);
    expect(got.cpu_ids).toEqual(['1']);
    expect(got.memory).toEqual([{ memory_type: 'memory', size: String(1 << 30), topology: { nodes: [{ ID: '0' }] } }]);
  });

  it("serves Get for a known pod and fails with Go's text, code Unknown, for an unknown one", async () => {
    const { client } = await serving();
    expect((await client.get('default', 'gpu')).pod_resources?.containers[0]?.cpu_ids).toEqual(['1']);
    expect(await failureOf(client.get('default', 'nope'))).toEqual({ code: grpc.status.UNKNOWN, details: 'pod nope in namespace default not found' });
  });

  it("fails Get with Go's text when KubeletPodResourcesGet is off", async () => {
    const { client } = await serving({ getEnabled: false });
    expect(await failureOf(client.get('default', 'gpu'))).toEqual({ code: grpc.status.UNKNOWN, details: 'PodResources API Get method disabled' });
  });

  it('counts each call by method for /metrics, and the failed Gets', async () => {
    const { client, requests } = await serving();
    await client.list();
    await client.allocatable();
    await client.get('default', 'gpu');
    await failureOf(client.get('default', 'nope'));
    expect(requests).toEqual({ total: 4, list: 1, getAllocatable: 1, get: 2, getErrors: 1 });
  });

  it('refuses the call past the burst with ResourceExhausted, uncounted, and serves again once a token is back', async () => {
    let now = 0;
    const { client, requests } = await serving({ nowMs: () => now });
    for (let i = 0; i < 10; i += 1) await client.list();
    expect(await failureOf(client.list())).toEqual({ code: grpc.status.RESOURCE_EXHAUSTED, details: 'rejected by rate limit' });
    expect(requests.total).toBe(10);
    now = 10;
    await expect(client.list()).resolves.toBeDefined();
  });

  it('takes the place of a file an earlier run left at its path, and removes its socket when closed', async () => {
    const { client, server, socketPath } = await serving({ leftover: true });
    await expect(client.list()).resolves.toBeDefined();
    await server.close();
    expect(() => statSync(socketPath)).toThrow(/ENOENT/);
  });

  it('shares one List build between concurrent Lists on one connection, and sends the same answer to each', async () => {
    const builders = { index: vi.fn(indexState), list: vi.fn(listAnswer) };
    const { client } = await serving({ builders });
    const lists = await Promise.all(Array.from({ length: 5 }, () => client.list()));
    expect(new Set(lists.map((l) => JSON.stringify(l))).size).toBe(1);
    expect(lists[0]?.pod_resources.map((p) => p.name)).toEqual(['gpu']);
    expect(builders.list).toHaveBeenCalledTimes(1);
    expect(builders.index).toHaveBeenCalledTimes(1);
  });
});

const cleanup = (destroy: () => void) => void cleanups.push(destroy);

describe('the pod resources socket\'s connection bounds', () => {
  it('closes a connection that sends no HTTP/2 preface within the preface timeout, naming the socket in the log, and keeps one that sent it', async () => {
    const { log, lines } = capturedLog();
    const { socketPath, client } = await serving({ bounds: { maxConnections: 10, prefaceTimeoutMs: 200 }, log });
    await client.list(); // the server behind the front is started
    await expectPrefaceTimeout(socketPath, 200, cleanup);
    expect(lines).toContainEqual(expect.objectContaining({ socket: socketPath, msg: expect.stringContaining('no HTTP/2 preface') }));
  });

  it('closes connections past its bound as they come, logged once, and takes a new one when one went', async () => {
    const { log, lines } = capturedLog();
    const { socketPath, client } = await serving({ bounds: { maxConnections: 3, prefaceTimeoutMs: 60_000 }, log });
    await client.list(); // the client's channel is one of the three
    await expectConnectionBound(socketPath, 2, cleanup);
    expect(lines.filter((l) => String(l.msg).includes('at their bound'))).toEqual([expect.objectContaining({ socket: socketPath, maxConnections: 3 })]);
  });
});
