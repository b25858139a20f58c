/**
 * The test API server driven by @kubernetes/client-node itself, over real loopback sockets: if
 * these pass, the client cannot tell it from an API server for what the kubelet does.
 */
import './node20-compat.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { clientsFor, collectWatch, failureOf, type Clients } from './client-helpers.js';
import { startTestApiServer, type TestApiServer } from './index.js';

let server: TestApiServer;
let c: Clients;

beforeEach(async () => {
  server = await startTestApiServer({ token: 'sekret' });
  c = clientsFor(server);
});

afterEach(async () => {
  await server.close();
});

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

function pod(name: string, nodeName?: string, extra: Partial<V1Pod['spec']> = {}): V1Pod {
  return {
    metadata: { name, namespace: 'default' },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'busybox:1.36' }], ...extra },
  };
}

describe('test API server with client-node: nodes', () => {
  it('creates, gets, lists and patches a node and its status', async () => {
    const created = await c.core.createNode({ body: { metadata: { name: 'n1', labels: { 'kubernetes.io/os': 'linux' } } } });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(created.metadata?.resourceVersion)).toBeGreaterThan(0);
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);

    const got = await c.core.readNode({ name: 'n1' });
    expect(got.metadata?.uid).toBe(created.metadata?.uid);

    const list = await c.core.listNode();
    expect(list.items.map((n) => n.metadata?.name)).toEqual(['n1']);
    expect(Number(list.metadata?.resourceVersion)).toBe(Number(created.metadata?.resourceVersion));

    const patched = await c.core.patchNode({ name: 'n1', body: { metadata: { labels: { role: 'worker' } } } }, merge);
    expect(patched.metadata?.labels).toEqual({ 'kubernetes.io/os': 'linux', role: 'worker' });
    expect(Number(patched.metadata?.resourceVersion)).toBeGreaterThan(Number(created.metadata?.resourceVersion));

    // The kubelet's node status patch: conditions merge by type, with $setElementOrder.
    await c.core.patchNodeStatus({ name: 'n1', body: { status: { conditions: [
      { type: 'Ready', status: 'False', reason: 'KubeletNotReady' },
      { type: 'MemoryPressure', status: 'False' },
    ] } } }, strategic);
    const status = await c.core.patchNodeStatus({ name: 'n1', body: {
      status: { '$setElementOrder/conditions': [{ type: 'MemoryPressure' }, { type: 'Ready' }],
        conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] },
    } }, strategic);
    expect(status.status?.conditions?.map((x) => [x.type, x.status, x.reason])).toEqual([
      ['MemoryPressure', 'False', undefined], ['Ready', 'True', 'KubeletReady']]);

    const read = await c.core.readNodeStatus({ name: 'n1' });
    expect(read.status?.conditions).toHaveLength(2);

    // A JSON patch on the main resource; status written there is ignored (status subresource only).
    const jp = await c.core.patchNode({ name: 'n1', body: [
      { op: 'add', path: '/spec/unschedulable', value: true },
      { op: 'replace', path: '/status', value: { conditions: [] } },
    ] });
    expect(jp.spec?.unschedulable).toBe(true);
    expect(jp.status?.conditions).toHaveLength(2);
  });

  it('answers AlreadyExists and NotFound as Status objects', async () => {
    await c.core.createNode({ body: { metadata: { name: 'n1' } } });
    const exists = await failureOf(() => c.core.createNode({ body: { metadata: { name: 'n1' } } }));
    expect(exists).toMatchObject({ kind: 'Status', code: 409, reason: 'AlreadyExists', details: { name: 'n1', kind: 'nodes' } });
    const missing = await failureOf(() => c.core.readNode({ name: 'nope' }));
    expect(missing).toMatchObject({ code: 404, reason: 'NotFound', message: 'nodes "nope" not found' });
  });

  it('replaces node status with PUT on the status subresource, keeping spec', async () => {
    await c.core.createNode({ body: { metadata: { name: 'n1' }, spec: { podCIDR: '10.0.0.0/24' } } });
    const node = await c.core.readNode({ name: 'n1' });
    node.status = { nodeInfo: { kubeletVersion: 'v1.34.0' } as never };
    node.spec = { podCIDR: '10.9.9.0/24' };
    const put = await c.core.replaceNodeStatus({ name: 'n1', body: node });
    expect(put.status?.nodeInfo?.kubeletVersion).toBe('v1.34.0');
    expect(put.spec?.podCIDR).toBe('10.0.0.0/24');
  });

  it('serves discovery for /api and /apis', async () => {
    const headers = { Authorization: `Bearer ${server.token}` };
    expect(await (await fetch(`${server.url}/api`, { headers })).json()).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const groups = await (await fetch(`${server.url}/apis`, { headers })).json() as { groups: Array<{ name: string }> };
    expect(groups.groups.map((g) => g.name)).toContain('coordination.k8s.io');
    const core = await (await fetch(`${server.url}/api/v1`, { headers })).json() as { resources: Array<{ name: string }> };
    expect(core.resources.map((r) => r.name)).toEqual(expect.arrayContaining(['pods', 'pods/status', 'nodes', 'nodes/status', 'events']));
  });

  it('refuses a request without the bearer token with 401', async () => {
    const res = await fetch(`${server.url}/api/v1/nodes`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });
});

describe('test API server with client-node: leases', () => {
  it('updates a lease and answers 409 Conflict to a stale resourceVersion', async () => {
    const lease = await c.coordination.createNamespacedLease({ namespace: 'kube-node-lease', body: {
      metadata: { name: 'n1' }, spec: { holderIdentity: 'n1', leaseDurationSeconds: 40, renewTime: new Date() as never },
    } });
    const stale = structuredClone(lease);
    lease.spec = { ...lease.spec, renewTime: new Date(Date.now() + 10_000) as never };
    const renewed = await c.coordination.replaceNamespacedLease({ name: 'n1', namespace: 'kube-node-lease', body: lease });
    expect(Number(renewed.metadata?.resourceVersion)).toBeGreaterThan(Number(stale.metadata?.resourceVersion));

    const conflict = await failureOf(() => c.coordination.replaceNamespacedLease({ name: 'n1', namespace: 'kube-node-lease', body: stale }));
    expect(conflict).toMatchObject({ code: 409, reason: 'Conflict', details: { name: 'n1', group: 'coordination.k8s.io', kind: 'leases' } });
    expect(conflict.message).toContain('the object has been modified');
  });

  it('refuses objects in a namespace that does not exist', async () => {
    const err = await failureOf(() => c.coordination.createNamespacedLease({ namespace: 'nope', body: { metadata: { name: 'x' } } }));
    expect(err).toMatchObject({ code: 404, reason: 'NotFound', details: { kind: 'namespaces', name: 'nope' } });
  });
});

describe('test API server with client-node: pods and watch', () => {
  it('lists and watches pods by spec.nodeName, seeing ADDED, MODIFIED and DELETED', async () => {
    const list = await c.core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=n1' });
    expect(list.items).toEqual([]);
    const w = await collectWatch(c.kc, '/api/v1/pods', { fieldSelector: 'spec.nodeName=n1', resourceVersion: list.metadata?.resourceVersion });

    await c.core.createNamespacedPod({ namespace: 'default', body: pod('a', 'n1') });
    await c.core.createNamespacedPod({ namespace: 'default', body: pod('other', 'n2') });
    await c.core.patchNamespacedPodStatus({ name: 'a', namespace: 'default', body: { status: { phase: 'Running' } } }, merge);
    await c.core.deleteNamespacedPod({ name: 'a', namespace: 'default', gracePeriodSeconds: 0 });

    await vi.waitFor(() => expect(w.events).toHaveLength(3));
    expect(w.events.map((e) => [e.type, e.object.metadata?.name])).toEqual([['ADDED', 'a'], ['MODIFIED', 'a'], ['DELETED', 'a']]);
    const rvs = w.events.map((e) => Number(e.object.metadata?.resourceVersion));
    expect([...rvs].sort((x, y) => x - y)).toEqual(rvs);
    w.abort();
  });

  it('sends DELETED when an object stops matching a label selector and ADDED when it matches again', async () => {
    const w = await collectWatch(c.kc, '/api/v1/namespaces/default/pods', { labelSelector: 'app=web', resourceVersion: server.store.resourceVersion() });
    const p = pod('a', 'n1');
    p.metadata!.labels = { app: 'web' };
    await c.core.createNamespacedPod({ namespace: 'default', body: p });
    await c.core.patchNamespacedPod({ name: 'a', namespace: 'default', body: { metadata: { labels: { app: 'db' } } } }, merge);
    await c.core.patchNamespacedPod({ name: 'a', namespace: 'default', body: { metadata: { labels: { tier: 'x' } } } }, merge);
    await c.core.patchNamespacedPod({ name: 'a', namespace: 'default', body: { metadata: { labels: { app: 'web' } } } }, merge);
    await vi.waitFor(() => expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'DELETED', 'ADDED']));
    w.abort();
    await vi.waitFor(() => expect(server.watchCount()).toBe(0));
  });

  it('gives a created pod the API server defaults and a Pending status', async () => {
    const created = await c.core.createNamespacedPod({ namespace: 'default', body: { ...pod('a', 'n1'), status: { phase: 'Running' } } });
    expect(created.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    expect(created.spec?.restartPolicy).toBe('Always');
    expect(created.spec?.terminationGracePeriodSeconds).toBe(30);
    expect(created.metadata?.generation).toBe(1);
  });

  it('sends bookmarks when asked for them', async () => {
    await c.core.createNamespacedPod({ namespace: 'default', body: pod('a', 'n1') });
    const rv = server.store.resourceVersion();
    const w = await collectWatch(c.kc, '/api/v1/pods', { allowWatchBookmarks: true, resourceVersion: rv });
    await vi.waitFor(() => expect(server.watchCount()).toBe(1));
    server.store.create('nodes', { metadata: { name: 'unrelated' } });
    server.sendBookmarks();
    await vi.waitFor(() => expect(w.events).toHaveLength(1));
    expect(w.events[0]).toMatchObject({ type: 'BOOKMARK', object: { metadata: { resourceVersion: server.store.resourceVersion() } } });
    w.abort();
  });

  it('streams the current objects first and marks their end with a bookmark under sendInitialEvents', async () => {
    await c.core.createNamespacedPod({ namespace: 'default', body: pod('a', 'n1') });
    await c.core.createNamespacedPod({ namespace: 'default', body: pod('b', 'n1') });
    const w = await collectWatch(c.kc, '/api/v1/pods', { sendInitialEvents: true, allowWatchBookmarks: true, resourceVersionMatch: 'NotOlderThan' });
    await vi.waitFor(() => expect(w.events).toHaveLength(3));
    expect(w.events.map((e) => [e.type, e.object.metadata?.name])).toEqual([['ADDED', 'a'], ['ADDED', 'b'], ['BOOKMARK', undefined]]);
    expect(w.events[2]?.object.metadata?.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    w.abort();
  });

  it('answers a watch from a compacted resourceVersion with an ERROR event carrying 410, then ends', async () => {
    const small = await startTestApiServer({ historyLimit: 2 });
    try {
      const sc = clientsFor(small);
      const first = small.store.resourceVersion();
      for (const name of ['a', 'b', 'c']) small.store.create('pods', pod(name, 'n1') as never);
      const w = await collectWatch(sc.kc, '/api/v1/pods', { resourceVersion: first });
      expect(await w.done).toBeNull();
      expect(w.events).toHaveLength(1);
      expect(w.events[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    } finally {
      await small.close();
    }
  });

  it('ends a watch after timeoutSeconds', async () => {
    const w = await collectWatch(c.kc, '/api/v1/pods', { timeoutSeconds: 1, allowWatchBookmarks: true });
    expect(await w.done).toBeNull();
    expect(w.events.map((e) => e.type)).toEqual(['BOOKMARK']);
  });

  it('deletes a bound pod gracefully first, and for good with grace 0', async () => {
    await c.core.createNamespacedPod({ namespace: 'default', body: pod('a', 'n1', { terminationGracePeriodSeconds: 20 }) });
    const w = await collectWatch(c.kc, '/api/v1/namespaces/default/pods', { resourceVersion: server.store.resourceVersion() });
    const marked = await c.core.deleteNamespacedPod({ name: 'a', namespace: 'default' });
    expect(marked.metadata?.deletionGracePeriodSeconds).toBe(20);
    expect(marked.metadata?.deletionTimestamp).toBeInstanceOf(Date);
    const still = await c.core.readNamespacedPod({ name: 'a', namespace: 'default' });
    expect(still.metadata?.deletionTimestamp).toBeInstanceOf(Date);

    // The kubelet's final delete: grace 0 with a UID precondition.
    const wrongUid = await failureOf(() => c.core.deleteNamespacedPod({ name: 'a', namespace: 'default', gracePeriodSeconds: 0,
      body: { preconditions: { uid: 'not-it' } } }));
    expect(wrongUid).toMatchObject({ code: 409, reason: 'Conflict' });
    await c.core.deleteNamespacedPod({ name: 'a', namespace: 'default', gracePeriodSeconds: 0,
      body: { preconditions: { uid: still.metadata?.uid as string } } });
    expect(await failureOf(() => c.core.readNamespacedPod({ name: 'a', namespace: 'default' }))).toMatchObject({ code: 404 });
    await vi.waitFor(() => expect(w.events.map((e) => e.type)).toEqual(['MODIFIED', 'DELETED']));
    w.abort();
  });

  it('deletes an unscheduled pod at once', async () => {
    await c.core.createNamespacedPod({ namespace: 'default', body: pod('a') });
    await c.core.deleteNamespacedPod({ name: 'a', namespace: 'default' });
    expect(server.store.get('pods', 'default', 'a')).toBeUndefined();
  });

  it('stores a mirror pod like any pod', async () => {
    const mirror = pod('static-n1', 'n1');
    mirror.metadata!.annotations = { 'kubernetes.io/config.mirror': 'abc', 'kubernetes.io/config.source': 'file' };
    await c.core.createNamespacedPod({ namespace: 'default', body: mirror });
    const got = await c.core.readNamespacedPod({ name: 'static-n1', namespace: 'default' });
    expect(got.metadata?.annotations?.['kubernetes.io/config.mirror']).toBe('abc');
  });
});

describe('test API server with client-node: events and reviews', () => {
  it('takes core/v1 and events.k8s.io/v1 events into one store', async () => {
    await c.core.createNamespacedEvent({ namespace: 'default', body: {
      metadata: { name: 'n1.1' }, involvedObject: { kind: 'Node', name: 'n1' }, reason: 'Starting', message: 'Starting kubelet.',
      source: { component: 'kubelet', host: 'n1' }, count: 1, type: 'Normal',
    } });
    await c.events.createNamespacedEvent({ namespace: 'default', body: {
      metadata: { name: 'n1.2' }, regarding: { kind: 'Node', name: 'n1' }, reason: 'NodeReady', note: 'Node n1 status is now: NodeReady',
      reportingController: 'kubelet', reportingInstance: 'n1', action: 'StatusChange', type: 'Normal', eventTime: new Date() as never,
    } });
    const list = await c.core.listNamespacedEvent({ namespace: 'default', fieldSelector: 'involvedObject.name=n1' });
    expect(list.items.map((e) => [e.reason, e.message])).toEqual([
      ['Starting', 'Starting kubelet.'], ['NodeReady', 'Node n1 status is now: NodeReady']]);
    const v1 = await c.events.listNamespacedEvent({ namespace: 'default' });
    expect(v1.items[0]?.note).toBe('Starting kubelet.');
  });

  it('answers TokenReview from the table and SubjectAccessReview from the function', async () => {
    server.reviews.tokens.set('good', { username: 'alice', groups: ['system:authenticated'] });
    server.reviews.authorize = (spec) => ({ allowed: spec.user === 'alice' && spec.resourceAttributes?.subresource === 'log' });
    const ok = await c.authn.createTokenReview({ body: { spec: { token: 'good' } } });
    expect(ok.status).toMatchObject({ authenticated: true, user: { username: 'alice', groups: ['system:authenticated'] } });
    const bad = await c.authn.createTokenReview({ body: { spec: { token: 'bad' } } });
    expect(bad.status?.authenticated).toBeFalsy();

    const allowed = await c.authz.createSubjectAccessReview({ body: { spec: { user: 'alice',
      resourceAttributes: { verb: 'get', resource: 'nodes', subresource: 'log', name: 'n1' } } } });
    expect(allowed.status?.allowed).toBe(true);
    const denied = await c.authz.createSubjectAccessReview({ body: { spec: { user: 'alice',
      resourceAttributes: { verb: 'get', resource: 'nodes', subresource: 'proxy', name: 'n1' } } } });
    expect(denied.status?.allowed).toBe(false);
  });
});
