/** createApiClients against the test API server, over real loopback sockets. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClients, heartbeatTimeoutMs } from '../../../src/adapters/apiserver/create-api-clients.js';
import { systemClock } from '../../../src/adapters/system-clock.js';
import type { KubeletError } from '../../../src/domain/errors.js';
import type { ApiClients, KubeObject, WatchEventType } from '../../../src/ports/apiserver.js';
import { startTestApiServer, type TestApiServer } from '../../apiserver/index.js';

let server: TestApiServer;
let dir: string;
let clients: ApiClients;

const logger = pino({ level: 'silent' });
const build = (overrides: Partial<Parameters<typeof createApiClients>[0]> = {}) =>
  createApiClients({ kubeconfigPath: server.kubeconfigPath(dir), qps: 50, burst: 100, eventQps: 50, eventBurst: 100, heartbeatTimeoutMs: 2_000, clock: systemClock, logger, ...overrides });
const codeOf = async (p: Promise<unknown>) => p.then(() => 'resolved', (e: KubeletError) => e.code);

beforeAll(async () => {
  server = await startTestApiServer();
  dir = mkdtempSync(join(tmpdir(), 'kts-clients-'));
  clients = build();
});
afterAll(async () => {
  clients.close();
  await server.close();
});

describe('createApiClients', () => {
  it('computes the heartbeat timeout as min(nodeStatusUpdateFrequency, nodeLeaseDurationSeconds)', () => {
    expect(heartbeatTimeoutMs(10_000, 40)).toBe(10_000);
    expect(heartbeatTimeoutMs(60_000, 40)).toBe(40_000);
  });

  it('creates, reads and status-patches a Node; a second create is ALREADY_EXISTS', async () => {
    const created = await clients.main.createNode({ metadata: { name: 'c1', labels: { a: 'b' } } });
    expect(created.metadata.uid).toBeTruthy();
    const patched = await clients.heartbeat.patchNodeStatus('c1', {
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'm', lastHeartbeatTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    });
    expect(patched.status?.conditions?.[0]).toMatchObject({ type: 'Ready', status: 'True', lastHeartbeatTime: '2026-01-01T00:00:00Z' });
    expect(patched.status?.daemonEndpoints).toEqual({ kubeletEndpoint: { Port: 10250 } });
    expect((await clients.main.getNode('c1')).metadata.labels).toEqual({ a: 'b' });
    expect(await codeOf(clients.main.createNode({ metadata: { name: 'c1' } }))).toBe('KLT_ERR_API_ALREADY_EXISTS');
    expect(await codeOf(clients.main.getNode('nope'))).toBe('KLT_ERR_API_NOT_FOUND');
  });

  it('replaces the address list on a status patch, keeping a dual-stack pair and dropping stale entries', async () => {
    await clients.main.createNode({ metadata: { name: 'ds' } });
    await clients.heartbeat.patchNodeStatus('ds', { addresses: [{ type: 'InternalIP', address: '10.0.0.9' }, { type: 'Hostname', address: 'ds' }] });
    const after = await clients.heartbeat.patchNodeStatus('ds', {
      addresses: [{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'InternalIP', address: 'fd00::5' }, { type: 'Hostname', address: 'ds' }],
    });
    expect(after.status?.addresses).toEqual([{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'InternalIP', address: 'fd00::5' }, { type: 'Hostname', address: 'ds' }]);
  });

  it('updates a Lease with its resourceVersion and maps a stale one to CONFLICT', async () => {
    const lease = await clients.heartbeat.createLease({ metadata: { name: 'c1', namespace: 'kube-node-lease' }, spec: { holderIdentity: 'c1', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00.123456Z' } });
    const renewed = await clients.heartbeat.updateLease({ ...lease, spec: { ...lease.spec, renewTime: '2026-01-01T00:00:10.000001Z' } });
    expect(renewed.spec.renewTime).toMatch(/^2026-01-01T00:00:10\.000001Z$/);
    expect(await codeOf(clients.heartbeat.updateLease(lease))).toBe('KLT_ERR_API_CONFLICT');
  });

  it('lists and watches pods bound to the node, and patches their status', async () => {
    const pod = (name: string, nodeName: string): KubeObject => ({ metadata: { name, namespace: 'default' }, spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }] } });
    await clients.main.createPod('default', pod('p1', 'c1'));
    await clients.main.createPod('default', pod('other', 'c2'));
    const list = await clients.main.listPods({ nodeName: 'c1' });
    expect(list.items.map((p) => p.metadata.name)).toEqual(['p1']);
    const seen: [WatchEventType, string | undefined][] = [];
    const handle = await clients.main.watchPods({ nodeName: 'c1', resourceVersion: list.resourceVersion, onEvent: (t, o) => seen.push([t, o.metadata.name]), onDone: () => undefined });
    await clients.main.createPod('default', pod('p2', 'c1'));
    const patched = await clients.main.patchPodStatus('default', 'p2', { status: { phase: 'Running' } });
    expect((patched as { status?: { phase?: string } }).status?.phase).toBe('Running');
    await expect.poll(() => seen).toEqual([['ADDED', 'p2'], ['MODIFIED', 'p2']]);
    handle.stop();
    await clients.main.deletePod('default', 'p2', { gracePeriodSeconds: 0 });
    expect(await codeOf(clients.main.getPod('default', 'p2'))).toBe('KLT_ERR_API_NOT_FOUND');
  });

  it('ends a pod watch from a compacted resourceVersion with KLT_ERR_API_GONE (relist)', async () => {
    const small = await startTestApiServer({ historyLimit: 2 });
    try {
      const c = createApiClients({ kubeconfigPath: small.kubeconfigPath(mkdtempSync(join(tmpdir(), 'kts-gone-'))), qps: 50, burst: 100, eventQps: 50, eventBurst: 100, heartbeatTimeoutMs: 2_000, clock: systemClock, logger });
      const first = await c.main.listPods({ nodeName: 'g' });
      for (let i = 0; i < 5; i++) await c.main.createPod('default', { metadata: { name: `g${i}`, namespace: 'default' }, spec: { nodeName: 'g', containers: [{ name: 'c', image: 'i' }] } });
      let ended: unknown = 'not yet';
      const started = c.main.watchPods({ nodeName: 'g', resourceVersion: first.resourceVersion, onEvent: () => undefined, onDone: (err) => (ended = err) });
      // Either the stream carries an ERROR event (a real API server) or the watch is refused outright.
      const code = await started.then(async (h) => {
        await expect.poll(() => ended).not.toBe('not yet');
        h.stop();
        return (ended as KubeletError).code;
      }, (err: KubeletError) => err.code);
      expect(code).toBe('KLT_ERR_API_GONE');
    } finally {
      await small.close();
    }
  });

  it('creates events through the event client', async () => {
    const ev = await clients.events.createEvent('default', {
      metadata: { name: 'c1.1', namespace: 'default' },
      involvedObject: { kind: 'Node', name: 'c1' }, reason: 'Starting', message: 'Starting kubelet.', type: 'Normal', count: 1,
      source: { component: 'kubelet', host: 'c1' },
    });
    expect(ev.metadata.name).toBe('c1.1');
  });

  it('times a slow heartbeat out with KLT_ERR_API_TIMEOUT, retryable', async () => {
    const hb = build({ heartbeatTimeoutMs: 100 });
    // A slow API server, not a wait: its answers come later than the heartbeat's deadline.
    server.faults.delay(400); // injected latency
    try {
      const started = Date.now();
      await expect(hb.heartbeat.getNode('c1')).rejects.toMatchObject({ code: 'KLT_ERR_API_TIMEOUT', retryable: true });
      expect(Date.now() - started).toBeLessThan(350);
      // The main client has no timeout: the same slow answer arrives.
      expect((await clients.main.getNode('c1')).metadata.name).toBe('c1');
    } finally {
      server.faults.reset();
    }
  });

  it('maps a refused connection to UNAVAILABLE and works again after reopen', async () => {
    const stop = server.faults.stopListening();
    await stop;
    try {
      await expect(clients.heartbeat.getNode('c1')).rejects.toMatchObject({ code: 'KLT_ERR_API_UNAVAILABLE', retryable: true });
    } finally {
      await server.faults.resumeListening();
    }
    clients.heartbeat.reopen();
    expect((await clients.heartbeat.getNode('c1')).metadata.name).toBe('c1');
  });

  it('keeps the current connections when the kubeconfig cannot be reloaded on reopen', async () => {
    const copyDir = mkdtempSync(join(tmpdir(), 'kts-reopen-'));
    const path = join(copyDir, 'kubeconfig');
    writeFileSync(path, readFileSync(server.kubeconfigPath(dir), 'utf8'));
    const c = build({ kubeconfigPath: path });
    writeFileSync(path, 'not: [a kubeconfig');
    expect(() => c.heartbeat.reopen()).not.toThrow();
    expect((await c.heartbeat.getNode('c1')).metadata.name).toBe('c1');
  });

  it('maps a wrong token to UNAUTHORIZED', async () => {
    const path = join(dir, 'bad-kubeconfig');
    writeFileSync(path, readFileSync(server.kubeconfigPath(dir), 'utf8').replaceAll(server.token, 'not-the-token'));
    const bad = build({ kubeconfigPath: path });
    expect(await codeOf(bad.main.getNode('c1'))).toBe('KLT_ERR_API_UNAUTHORIZED');
  });

  it('refuses a kubeconfig without a cluster with KLT_ERR_API_CONFIG', () => {
    const path = join(dir, 'empty-kubeconfig');
    writeFileSync(path, JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [], users: [], contexts: [] }));
    expect(() => build({ kubeconfigPath: path })).toThrow(expect.objectContaining({ code: 'KLT_ERR_API_CONFIG' }));
  });

  it('spaces requests on the main client at its QPS once the burst is spent', async () => {
    const limited = build({ qps: 10, burst: 1 });
    const started = Date.now();
    await Promise.all([limited.main.getNode('c1'), limited.main.getNode('c1'), limited.main.getNode('c1')]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });
});
