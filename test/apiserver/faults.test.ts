/**
 * Fault injection as client-node sees it: refused connections that recover on the same port with
 * the same state, injected status codes, latency, and dropped watches that an informer resumes.
 */
import './node20-compat.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeInformer, type V1Pod } from '@kubernetes/client-node';
import { clientsFor, collectWatch, failureOf, type Clients } from './client-helpers.js';
import { startTestApiServer, type TestApiServer } from './index.js';

let server: TestApiServer;
let c: Clients;

beforeEach(async () => {
  server = await startTestApiServer();
  c = clientsFor(server);
});

afterEach(async () => {
  await server.close();
});

function pod(name: string, nodeName: string): V1Pod {
  return { metadata: { name, namespace: 'default' }, spec: { nodeName, containers: [{ name: 'c', image: 'busybox:1.36' }] } };
}

describe('test API server faults', () => {
  it('refuses connections for a while, then serves the same state on the same port', async () => {
    await c.core.createNode({ body: { metadata: { name: 'n1' } } });
    const back = server.faults.refuseConnections(300);
    await vi.waitFor(() => expect(server.watchCount()).toBe(0));
    const err = await c.core.readNode({ name: 'n1' }).then(() => undefined, (e: unknown) => e);
    expect(String((err as { cause?: { code?: string } })?.cause?.code ?? err)).toMatch(/ECONNREFUSED/);
    await back;
    const node = await c.core.readNode({ name: 'n1' });
    expect(node.metadata?.name).toBe('n1');
    expect(new URL(server.url).port).toBe(String(server.port));
  });

  it('cuts open watches when it stops listening', async () => {
    const w = await collectWatch(c.kc, '/api/v1/pods', {});
    await vi.waitFor(() => expect(server.watchCount()).toBe(1));
    await server.faults.stopListening();
    await w.done;
    expect(server.watchCount()).toBe(0);
    await server.faults.resumeListening();
    expect((await c.core.listNode()).items).toEqual([]);
  });

  it('answers the next n requests with the injected status, then recovers', async () => {
    server.faults.failNext(2, 503);
    expect(await failureOf(() => c.core.listNode())).toMatchObject({ kind: 'Status', code: 503, reason: 'ServiceUnavailable' });
    expect(await failureOf(() => c.core.listNode())).toMatchObject({ code: 503 });
    expect((await c.core.listNode()).items).toEqual([]);
  });

  it('fails only the requests the predicate picks', async () => {
    await c.coordination.createNamespacedLease({ namespace: 'kube-node-lease', body: { metadata: { name: 'n1' }, spec: {} } });
    server.faults.failNext(1, 500, (r) => r.method === 'PUT' && r.path.includes('/leases/'));
    expect((await c.core.listNode()).items).toEqual([]);
    const lease = await c.coordination.readNamespacedLease({ name: 'n1', namespace: 'kube-node-lease' });
    expect(await failureOf(() => c.coordination.replaceNamespacedLease({ name: 'n1', namespace: 'kube-node-lease', body: lease })))
      .toMatchObject({ code: 500, reason: 'InternalError' });
    await c.coordination.replaceNamespacedLease({ name: 'n1', namespace: 'kube-node-lease', body: lease });
  });

  it('delays every answer while a delay is set', async () => {
    // The fault under test, not a wait: the server holds each answer back this long.
    server.faults.delay(200); // injected latency
    const t0 = performance.now();
    await c.core.listNode();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
    server.faults.delay(0); // turns the injected latency off; not a sleep
    const t1 = performance.now();
    await c.core.listNode();
    expect(performance.now() - t1).toBeLessThan(190);
  });

  it('records every request with its method, path, query and answer', async () => {
    server.requests.length = 0;
    await c.core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=n1' });
    expect(server.requests).toEqual([expect.objectContaining({
      method: 'GET', path: '/api/v1/pods', query: { fieldSelector: 'spec.nodeName=n1' }, status: 200, watch: false,
    })]);
  });
});

describe('informer against the test API server', () => {
  const selector = 'spec.nodeName=n1';
  const startInformer = async () => {
    const informer = makeInformer<V1Pod>(c.kc, `/api/v1/pods?fieldSelector=${encodeURIComponent(selector)}`,
      () => c.core.listPodForAllNamespaces({ fieldSelector: selector }));
    const errors: unknown[] = [];
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    return { informer, errors };
  };
  const names = (pods: readonly V1Pod[]) => pods.map((p) => p.metadata?.name).sort();

  it('keeps its cache in sync across closeWatches()', async () => {
    await c.core.createNamespacedPod({ namespace: 'default', body: pod('a', 'n1') });
    await c.core.createNamespacedPod({ namespace: 'default', body: pod('elsewhere', 'n2') });
    const { informer, errors } = await startInformer();
    try {
      await vi.waitFor(() => expect(names(informer.list())).toEqual(['a']));
      await vi.waitFor(() => expect(server.watchCount()).toBe(1));

      // Changes made while no watch is open reach the cache through the resumed watch.
      server.faults.closeWatches();
      server.store.create('pods', pod('b', 'n1') as never);
      server.store.delete('pods', 'default', 'a', { gracePeriodSeconds: 0 });
      server.store.patch('pods', 'default', 'b', 'application/merge-patch+json', { status: { phase: 'Running' } }, 'status');

      await vi.waitFor(() => {
        expect(names(informer.list())).toEqual(['b']);
        expect(informer.get('b', 'default')?.status?.phase).toBe('Running');
      });
      const resumed = server.requests.filter((r) => r.watch).map((r) => r.query.resourceVersion);
      expect(resumed).toHaveLength(2);
      expect(Number(resumed[1])).toBeGreaterThan(0);
      expect(errors).toEqual([]);
    } finally {
      await informer.stop();
    }
  });

  it('reports an error and stops when the server stops listening; started again, it catches up', async () => {
    // client-node's ListWatch restarts itself only after a clean end or a 410; any other error
    // (here the cut connection, then refused ones) goes to its error callbacks and it stays stopped.
    await c.core.createNamespacedPod({ namespace: 'default', body: pod('a', 'n1') });
    const { informer, errors } = await startInformer();
    try {
      await vi.waitFor(() => expect(server.watchCount()).toBe(1));
      await server.faults.stopListening();
      await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0));
      server.store.create('pods', pod('during-outage', 'n1') as never);
      await server.faults.resumeListening();
      await informer.start();
      await vi.waitFor(() => expect(names(informer.list())).toEqual(['a', 'during-outage']));
    } finally {
      await informer.stop();
    }
  });

  it('relists after a 410 when its resourceVersion was compacted away', async () => {
    await c.core.createNamespacedPod({ namespace: 'default', body: pod('a', 'n1') });
    const { informer } = await startInformer();
    try {
      await vi.waitFor(() => expect(server.watchCount()).toBe(1));
      server.faults.closeWatches();
      server.store.delete('pods', 'default', 'a', { gracePeriodSeconds: 0 });
      server.store.create('pods', pod('c', 'n1') as never);
      server.store.compact();
      await vi.waitFor(() => expect(names(informer.list())).toEqual(['c']), { timeout: 5000 });
      const lists = server.requests.filter((r) => r.method === 'GET' && !r.watch && r.path === '/api/v1/pods');
      expect(lists).toHaveLength(2);
    } finally {
      await informer.stop();
    }
  });
});
