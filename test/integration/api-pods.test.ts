/**
 * The pod side of cluster mode against the test API server over loopback, through the real
 * client-node adapter: the apiserver pod source, the status manager with its effects, mirror
 * pods and events. The wiring between them is the few lines in `wire()` the supervisor will own.
 */
import '../apiserver/node20-compat.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, waitFor as xstateWaitFor } from 'xstate';
import { runApiPodSource, type ApiPodSourceEvent } from '../../src/actors/api-pods/api-pod-source.js';
import { createApiEventRecorder } from '../../src/actors/api-pods/event-recorder.js';
import { createStatusManagerActors } from '../../src/actors/api-pods/status-manager-actors.js';
import { createApiClients } from '../../src/adapters/apiserver/create-api-clients.js';
import { systemClock } from '../../src/adapters/system-clock.js';
import type { Pod, PodStatus } from '../../src/domain/pod/types.js';
import { statusManagerMachine } from '../../src/machines/status-manager.machine.js';
import type { ApiClients } from '../../src/ports/apiserver.js';
import { clientsFor, type Clients } from '../apiserver/client-helpers.js';
import { startTestApiServer, type TestApiServer } from '../apiserver/index.js';

const logger = pino({ level: 'silent' });
const NODE = 'node-a';

let server: TestApiServer;
let dir: string;
let api: ApiClients;
let kubectl: Clients;
const stops: (() => void)[] = [];

beforeEach(async () => {
  server = await startTestApiServer();
  dir = mkdtempSync(join(tmpdir(), 'kubelet-ts-api-pods-'));
  api = createApiClients({
    kubeconfigPath: server.kubeconfigPath(dir), qps: 0, burst: 0, eventQps: 0, eventBurst: 0,
    heartbeatTimeoutMs: 10_000, clock: systemClock, logger,
  });
  kubectl = clientsFor(server);
});

afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  api.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 5_000): Promise<T> {
  const found = await vi.waitUntil(async () => (await probe()) ?? false, { timeout: timeoutMs, interval: 20 })
    .catch(() => { throw new Error(`timed out waiting for ${what}`); });
  return found as T;
}

async function readPod(name: string, namespace = 'default'): Promise<Pod | null> {
  try {
    return (await api.main.getPod(namespace, name)) as unknown as Pod;
  } catch {
    return null;
  }
}

/**
 * The source and the status manager, wired as the supervisor would: the source's pods (plus the
 * static pods) are the pods the kubelet knows; its mirror pods go to the status manager.
 */
function wire(opts: { staticPods?: Pod[]; nodeUid?: string; syncPeriodMs?: number } = {}) {
  const events: ApiPodSourceEvent[] = [];
  const manager = createActor(statusManagerMachine.provide({ actors: createStatusManagerActors({ pods: api.main, logger }) }), {
    input: { nodeName: NODE, ...(opts.nodeUid ? { nodeUid: opts.nodeUid } : {}), ...(opts.syncPeriodMs ? { syncPeriodMs: opts.syncPeriodMs } : {}) },
  }).start();
  const stopSource = runApiPodSource({
    nodeName: NODE, listPods: (o) => api.main.listPods(o), watchPods: (o) => api.main.watchPods(o), clock: systemClock, logger,
    sendBack: (event) => {
      events.push(event);
      if (event.type === 'pod.source.snapshot') manager.send({ type: 'status.pods.known', pods: [...event.pods, ...(opts.staticPods ?? [])] });
      else manager.send(event);
    },
  });
  stops.push(stopSource, () => manager.stop());
  const lastPods = () => events.filter((e) => e.type === 'pod.source.snapshot').at(-1)?.pods ?? [];
  return { events, manager, lastPods };
}

const podBody = (name: string, nodeName: string) => ({
  metadata: { name, namespace: 'default' },
  spec: { nodeName, containers: [{ name: 'c', image: 'busybox:1.36' }] },
});

const runningStatus = (): PodStatus => ({
  phase: 'Running',
  conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
  containerStatuses: [{ name: 'c', ready: true, restartCount: 0, image: 'busybox:1.36', imageID: '', containerID: 'embedded://1', started: true, state: { running: { startedAt: '2026-01-01T00:00:00Z' } } }],
});

const finishedStatus = (): PodStatus => ({
  phase: 'Failed',
  conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: '2026-01-01T00:01:00Z', reason: 'PodFailed' }],
  containerStatuses: [{ name: 'c', ready: false, restartCount: 0, image: 'busybox:1.36', imageID: '', containerID: 'embedded://1', started: false, state: { terminated: { exitCode: 137, reason: 'Error' } } }],
});

describe('cluster mode, pod side, against the test API server', () => {
  it('delivers a pod created with this node\'s name as an api snapshot, keeping its uid', async () => {
    const k = wire();
    const created = await kubectl.core.createNamespacedPod({ namespace: 'default', body: podBody('web', NODE) });
    await kubectl.core.createNamespacedPod({ namespace: 'default', body: podBody('elsewhere', 'node-b') });
    const pods = await waitFor('the pod in a snapshot', () => (k.lastPods().length > 0 ? k.lastPods() : undefined));
    expect(pods.map((p) => p.metadata.name)).toEqual(['web']);
    expect(pods[0]!.metadata.uid).toBe(created.metadata?.uid);
  });

  it('picks up a pod created while the watch was dropped', async () => {
    const k = wire();
    await kubectl.core.createNamespacedPod({ namespace: 'default', body: podBody('first', NODE) });
    await waitFor('first', () => (k.lastPods().length === 1 ? true : undefined));
    server.faults.closeWatches();
    await kubectl.core.createNamespacedPod({ namespace: 'default', body: podBody('second', NODE) });
    const pods = await waitFor('second', () => (k.lastPods().length === 2 ? k.lastPods() : undefined));
    expect(pods.map((p) => p.metadata.name)).toEqual(['first', 'second']);
  });

  it('rides out an outage: pods kept, a pod created meanwhile picked up, the status sent at a resync', async () => {
    const k = wire({ syncPeriodMs: 500 });
    const created = await kubectl.core.createNamespacedPod({ namespace: 'default', body: podBody('before', NODE) });
    await waitFor('before', () => (k.lastPods().length === 1 ? true : undefined));
    await server.faults.stopListening();
    const effectsBefore = k.manager.getSnapshot().context.effectCount;
    k.manager.send({ type: 'pod.status.updated', podUid: created.metadata!.uid!, status: runningStatus() });
    server.store.create('pods', podBody('during', NODE) as never);
    // During the outage the status patch is tried, fails, and is tried again at a resync (a second
    // effect); the kubelet, cut off, has not seen the pod created meanwhile.
    await xstateWaitFor(k.manager, (s) => s.context.effectCount >= effectsBefore + 2, { timeout: 10_000 });
    expect(k.lastPods().map((p) => p.metadata.name)).toEqual(['before']);
    await server.faults.resumeListening();
    const pods = await waitFor('during', () => (k.lastPods().length === 2 ? k.lastPods() : undefined), 10_000);
    expect(pods.map((p) => p.metadata.name)).toEqual(['before', 'during']);
    await waitFor('the status sent', async () => ((await readPod('before'))?.status?.phase === 'Running' ? true : undefined), 5_000);
  }, 20_000);

  it('patches the pod status so that it is visible through the API', async () => {
    const k = wire();
    const created = await kubectl.core.createNamespacedPod({ namespace: 'default', body: podBody('web', NODE) });
    const uid = created.metadata!.uid!;
    await waitFor('the pod known', () => (k.lastPods().length === 1 ? true : undefined));
    k.manager.send({ type: 'pod.status.updated', podUid: uid, status: runningStatus() });
    const pod = await waitFor('Running in the API', async () => {
      const p = await readPod('web');
      return p?.status?.phase === 'Running' ? p : undefined;
    });
    expect(pod.status?.containerStatuses?.[0]?.state?.running).toBeDefined();
    expect(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
  });

  it('never writes a status onto another pod of the same name (the uid precondition)', async () => {
    const manager = createActor(statusManagerMachine.provide({ actors: createStatusManagerActors({ pods: api.main, logger }) }), { input: { nodeName: NODE } }).start();
    stops.push(() => manager.stop());
    const old = await kubectl.core.createNamespacedPod({ namespace: 'default', body: podBody('web', NODE) });
    // The kubelet knows the old pod; it is replaced behind its back before its status goes out.
    manager.send({ type: 'status.pods.known', pods: [(await readPod('web'))!] });
    await kubectl.core.deleteNamespacedPod({ namespace: 'default', name: 'web', gracePeriodSeconds: 0 });
    const replacement = await kubectl.core.createNamespacedPod({ namespace: 'default', body: podBody('web', NODE) });
    manager.send({ type: 'pod.status.updated', podUid: old.metadata!.uid!, status: runningStatus() });
    await waitFor('the patch refused', () => (server.requests.some((r) => r.method === 'PATCH' && r.status === 409) ? true : undefined));
    const stored = await readPod('web');
    expect(stored?.metadata.uid).toBe(replacement.metadata?.uid);
    expect(stored?.status?.phase).toBe('Pending');
  });

  it('removes a gracefully deleted pod once its status shows no running container', async () => {
    const k = wire();
    const created = await kubectl.core.createNamespacedPod({ namespace: 'default', body: podBody('web', NODE) });
    const uid = created.metadata!.uid!;
    await waitFor('the pod known', () => (k.lastPods().length === 1 ? true : undefined));
    k.manager.send({ type: 'pod.status.updated', podUid: uid, status: runningStatus() });
    await waitFor('Running', async () => ((await readPod('web'))?.status?.phase === 'Running' ? true : undefined));
    await kubectl.core.deleteNamespacedPod({ namespace: 'default', name: 'web', gracePeriodSeconds: 30 });
    await waitFor('the deletion seen', () => (k.lastPods()[0]?.metadata.deletionTimestamp ? true : undefined));
    expect(await readPod('web')).not.toBeNull(); // still there: its containers have not stopped yet
    k.manager.send({ type: 'pod.status.updated', podUid: uid, status: finishedStatus() });
    await waitFor('the pod removed', async () => ((await readPod('web')) === null ? true : undefined));
    await waitFor('the snapshot without it', () => (k.lastPods().length === 0 ? true : undefined));
  });

  it('creates a mirror pod for a static pod, sends the static pod\'s status to it, and recreates it when deleted', async () => {
    const node = await kubectl.core.createNode({ body: { metadata: { name: NODE } } });
    const staticPod: Pod = {
      metadata: {
        name: `etcd-${NODE}`, namespace: 'kube-system', uid: 'static-hash-1',
        annotations: { 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.hash': 'static-hash-1' },
      },
      spec: { nodeName: NODE, containers: [{ name: 'etcd', image: 'etcd:3.5' }] },
    };
    const k = wire({ staticPods: [staticPod], nodeUid: node.metadata!.uid! });
    const mirror = await waitFor('the mirror pod', async () => (await readPod(`etcd-${NODE}`, 'kube-system')) ?? undefined);
    expect(mirror.metadata.annotations?.['kubernetes.io/config.mirror']).toBe('static-hash-1');
    expect(mirror.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Node', name: NODE, uid: node.metadata!.uid })]);
    expect(k.lastPods()).toEqual([]); // a mirror pod is not a pod to run

    k.manager.send({ type: 'pod.status.updated', podUid: 'static-hash-1', status: runningStatus() });
    await waitFor('the mirror Running', async () => ((await readPod(`etcd-${NODE}`, 'kube-system'))?.status?.phase === 'Running' ? true : undefined));

    await kubectl.core.deleteNamespacedPod({ namespace: 'kube-system', name: `etcd-${NODE}` });
    const again = await waitFor('a new mirror pod', async () => {
      const p = await readPod(`etcd-${NODE}`, 'kube-system');
      return p && p.metadata.uid !== mirror.metadata.uid && !p.metadata.deletionTimestamp ? p : undefined;
    });
    expect(again.metadata.annotations?.['kubernetes.io/config.mirror']).toBe('static-hash-1');
  });

  it('deletes the mirror pod when its static pod goes', async () => {
    const node = await kubectl.core.createNode({ body: { metadata: { name: NODE } } });
    const orphan = {
      metadata: { name: 'old-static', namespace: 'kube-system', annotations: { 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.mirror': 'gone-hash' } },
      spec: { nodeName: NODE, containers: [{ name: 'c', image: 'busybox:1.36' }] },
    };
    await kubectl.core.createNamespacedPod({ namespace: 'kube-system', body: orphan });
    wire({ nodeUid: node.metadata!.uid! });
    await waitFor('the orphan removed', async () => ((await readPod('old-static', 'kube-system')) === null ? true : undefined));
  });

  it('posts events and aggregates a repeat into count 2', async () => {
    const recorder = createApiEventRecorder({ events: api.events, clock: systemClock, logger, host: NODE });
    const object = { kind: 'Node', name: NODE, uid: NODE };
    recorder.recordEvent({ object, type: 'Normal', reason: 'Starting', message: 'Starting kubelet.' });
    recorder.recordEvent({ object, type: 'Normal', reason: 'Starting', message: 'Starting kubelet.' });
    recorder.recordEvent({ object, type: 'Normal', reason: 'NodeReady', message: `Node ${NODE} status is now: NodeReady` });
    await recorder.flush();
    const list = await kubectl.core.listNamespacedEvent({ namespace: 'default' });
    const byReason = Object.fromEntries(list.items.map((e) => [e.reason, e]));
    expect(list.items).toHaveLength(2);
    expect(byReason['Starting']).toMatchObject({ count: 2, source: { component: 'kubelet', host: NODE }, involvedObject: { kind: 'Node', name: NODE } });
    expect(byReason['NodeReady']?.count).toBe(1);
  });
});
