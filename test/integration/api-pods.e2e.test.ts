/**
 * The pod side of cluster mode on the real control plane (the run's lab, v1.26), through the real
 * client adapter as system:node:<name>, so the Node authorizer and NodeRestriction judge what the
 * kubelet writes: the apiserver pod source, the status manager with its effects, mirror pods and
 * events, wired as the supervisor wires them (`wire()`). Each test has a node name of its own on the
 * shared lab. A dropped watch and an outage, which the real server cannot be made to do on demand,
 * are in api-pods.test.ts on the test API server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CoreV1Api } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { createApiEventRecorder } from '../../src/actors/api-pods/event-recorder.js';
import { systemClock } from '../../src/adapters/system-clock.js';
import type { Pod, PodStatus } from '../../src/domain/pod/types.js';
import type { ApiClients } from '../../src/ports/apiserver.js';
import { until } from '../support/daemon.js';
import { kubeLab, kubeLabPart, labApi, type KubeLab } from '../support/kube-lab.js';
import { labAdminCore, labNodeClients } from '../support/lab-clients.js';
import { runningStatus, startStatusManager, waitFor, wirePodSide, type PodSideOptions } from '../support/pod-side.js';
import { describeNeeding } from '../support/real-parts.js';

const logger = pino({ level: 'silent' });
const NS = 'kts-api-pods';

describeNeeding(kubeLabPart(), 'cluster mode, pod side, on the real control plane', () => {
  let lab: KubeLab;
  let dir: string;
  let kubectl: CoreV1Api;
  let tests = 0;
  let node: string;
  let api: ApiClients;
  const stops: (() => void)[] = [];

  beforeAll(async () => {
    lab = await kubeLab();
    dir = mkdtempSync(join(tmpdir(), 'kts-api-pods-'));
    kubectl = labAdminCore(lab);
    await kubectl.createNamespace({ body: { metadata: { name: NS } } });
    // A pod is admitted only once the namespace has its default ServiceAccount.
    await until(`${NS}'s default ServiceAccount`, async () => (await labApi(lab, 'GET', `/api/v1/namespaces/${NS}/serviceaccounts/default`)).status === 200, 30_000);
  }, 300_000);

  beforeEach(async () => {
    node = `kts-api-pods-${++tests}`;
    api = await labNodeClients(lab, node, dir);
  });

  afterEach(async () => {
    for (const stop of stops.splice(0)) stop();
    api.close();
    for (const ns of [NS, 'kube-system']) {
      const pods = await kubectl.listNamespacedPod({ namespace: ns, fieldSelector: `spec.nodeName=${node}` });
      for (const p of pods.items) await kubectl.deleteNamespacedPod({ namespace: ns, name: p.metadata!.name!, gracePeriodSeconds: 0 });
    }
    await labApi(lab, 'DELETE', `/api/v1/nodes/${node}`);
  });

  afterAll(async () => {
    if (lab) await labApi(lab, 'DELETE', `/api/v1/namespaces/${NS}`);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The pod as the node reads it, or null once it is gone. */
  async function readPod(name: string, namespace = NS): Promise<Pod | null> {
    try {
      return (await api.main.getPod(namespace, name)) as unknown as Pod;
    } catch {
      return null;
    }
  }

  const wire = (opts: PodSideOptions = {}) => wirePodSide(api, node, opts, stops);

  const podBody = (name: string, nodeName = node) => ({
    metadata: { name: `${name}-${tests}`, namespace: NS },
    spec: { nodeName, terminationGracePeriodSeconds: 30, containers: [{ name: 'c', image: 'busybox:1.36' }] },
  });

  const finishedStatus = (): PodStatus => ({
    phase: 'Failed',
    conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: '2026-01-01T00:01:00Z', reason: 'PodFailed' }],
    containerStatuses: [{ name: 'c', ready: false, restartCount: 0, image: 'busybox:1.36', imageID: '', containerID: 'embedded://1', started: false, state: { terminated: { exitCode: 137, reason: 'Error' } } }],
  });

  const createNode = () => kubectl.createNode({ body: { metadata: { name: node } } });

  it('delivers a pod created with this node\'s name as an api snapshot, keeping its uid', async () => {
    const k = wire();
    const created = await kubectl.createNamespacedPod({ namespace: NS, body: podBody('web') });
    await kubectl.createNamespacedPod({ namespace: NS, body: podBody('elsewhere', `${node}-other`) });
    const pods = await waitFor('the pod in a snapshot', () => (k.lastPods().length > 0 ? k.lastPods() : undefined));
    expect(pods.map((p) => p.metadata.name)).toEqual([created.metadata!.name]);
    expect(pods[0]!.metadata.uid).toBe(created.metadata?.uid);
    await kubectl.deleteNamespacedPod({ namespace: NS, name: `elsewhere-${tests}`, gracePeriodSeconds: 0 });
  });

  it('patches the pod status so that it is visible through the API', async () => {
    const k = wire();
    const created = await kubectl.createNamespacedPod({ namespace: NS, body: podBody('web') });
    await waitFor('the pod known', () => (k.lastPods().length === 1 ? true : undefined));
    k.manager.send({ type: 'pod.status.updated', podUid: created.metadata!.uid!, status: runningStatus() });
    const pod = await waitFor('Running in the API', async () => {
      const p = await readPod(created.metadata!.name!);
      return p?.status?.phase === 'Running' ? p : undefined;
    });
    expect(pod.status?.containerStatuses?.[0]?.state?.running).toBeDefined();
    expect(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
  });

  it('never writes a status onto another pod of the same name (the uid precondition)', async () => {
    const refused: unknown[] = [];
    const pods = { ...api.main, patchPodStatus: (...args: Parameters<ApiClients['main']['patchPodStatus']>) =>
      api.main.patchPodStatus(...args).catch((err: unknown) => { refused.push(err); throw err; }) };
    const manager = startStatusManager(api, node, { pods }, stops);
    const old = await kubectl.createNamespacedPod({ namespace: NS, body: podBody('web') });
    const name = old.metadata!.name!;
    // The kubelet knows the old pod; it is replaced behind its back before its status goes out.
    manager.send({ type: 'status.pods.known', pods: [(await readPod(name))!] });
    await kubectl.deleteNamespacedPod({ namespace: NS, name, gracePeriodSeconds: 0 });
    const replacement = await kubectl.createNamespacedPod({ namespace: NS, body: podBody('web') });
    manager.send({ type: 'pod.status.updated', podUid: old.metadata!.uid!, status: runningStatus() });
    await waitFor('the patch refused', () => refused[0], 10_000);
    // The uid in a status patch is no precondition to the real server: it applies the patch and
    // refuses the result, a pod's uid being immutable.
    expect(String((refused[0] as Error).message)).toMatch(new RegExp(`^patch pod status: 422 Invalid: Pod "${name}" is invalid: metadata\\.uid: Invalid value: "${old.metadata!.uid}": field is immutable$`));
    const stored = await readPod(name);
    expect(stored?.metadata.uid).toBe(replacement.metadata?.uid);
    expect(stored?.status?.phase).toBe('Pending');
  });

  it('removes a gracefully deleted pod once its status shows no running container', async () => {
    const k = wire();
    const created = await kubectl.createNamespacedPod({ namespace: NS, body: podBody('web') });
    const name = created.metadata!.name!;
    const uid = created.metadata!.uid!;
    await waitFor('the pod known', () => (k.lastPods().length === 1 ? true : undefined));
    k.manager.send({ type: 'pod.status.updated', podUid: uid, status: runningStatus() });
    await waitFor('Running', async () => ((await readPod(name))?.status?.phase === 'Running' ? true : undefined));
    await kubectl.deleteNamespacedPod({ namespace: NS, name, gracePeriodSeconds: 30 });
    await waitFor('the deletion seen', () => (k.lastPods()[0]?.metadata.deletionTimestamp ? true : undefined));
    expect(await readPod(name)).not.toBeNull(); // still there: its containers have not stopped yet
    k.manager.send({ type: 'pod.status.updated', podUid: uid, status: finishedStatus() });
    await waitFor('the pod removed', async () => ((await readPod(name)) === null ? true : undefined));
    await waitFor('the snapshot without it', () => (k.lastPods().length === 0 ? true : undefined));
  });

  it('creates a mirror pod for a static pod, sends the static pod\'s status to it, and recreates it when deleted', async () => {
    const created = await createNode();
    const mirrorName = `etcd-${node}`;
    const staticPod: Pod = {
      metadata: {
        name: mirrorName, namespace: 'kube-system', uid: 'static-hash-1',
        annotations: { 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.hash': 'static-hash-1' },
      },
      spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox:1.36' }] },
    };
    const k = wire({ staticPods: [staticPod], nodeUid: created.metadata!.uid! });
    const mirror = await waitFor('the mirror pod', async () => (await readPod(mirrorName, 'kube-system')) ?? undefined);
    expect(mirror.metadata.annotations?.['kubernetes.io/config.mirror']).toBe('static-hash-1');
    expect(mirror.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Node', name: node, uid: created.metadata!.uid })]);
    expect(k.lastPods()).toEqual([]); // a mirror pod is not a pod to run

    k.manager.send({ type: 'pod.status.updated', podUid: 'static-hash-1', status: runningStatus() });
    await waitFor('the mirror Running', async () => ((await readPod(mirrorName, 'kube-system'))?.status?.phase === 'Running' ? true : undefined));

    await kubectl.deleteNamespacedPod({ namespace: 'kube-system', name: mirrorName });
    const again = await waitFor('a new mirror pod', async () => {
      const p = await readPod(mirrorName, 'kube-system');
      return p && p.metadata.uid !== mirror.metadata.uid && !p.metadata.deletionTimestamp ? p : undefined;
    });
    expect(again.metadata.annotations?.['kubernetes.io/config.mirror']).toBe('static-hash-1');
  });

  it('deletes the mirror pod when its static pod goes', async () => {
    const created = await createNode();
    const orphan = {
      metadata: { name: `old-static-${node}`, namespace: 'kube-system', annotations: { 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.mirror': 'gone-hash' } },
      spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox:1.36' }] },
    };
    await kubectl.createNamespacedPod({ namespace: 'kube-system', body: orphan });
    wire({ nodeUid: created.metadata!.uid! });
    await waitFor('the orphan removed', async () => ((await readPod(`old-static-${node}`, 'kube-system')) === null ? true : undefined));
  });

  it('posts events and aggregates a repeat into count 2', async () => {
    const recorder = createApiEventRecorder({ events: api.events, clock: systemClock, logger, host: node });
    const object = { kind: 'Node', name: node, uid: node };
    recorder.recordEvent({ object, type: 'Normal', reason: 'Starting', message: 'Starting kubelet.' });
    recorder.recordEvent({ object, type: 'Normal', reason: 'Starting', message: 'Starting kubelet.' });
    recorder.recordEvent({ object, type: 'Normal', reason: 'NodeReady', message: `Node ${node} status is now: NodeReady` });
    await recorder.flush();
    const list = await kubectl.listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.name=${node}` });
    const byReason = Object.fromEntries(list.items.map((e) => [e.reason, e]));
    expect(list.items).toHaveLength(2);
    expect(byReason['Starting']).toMatchObject({ count: 2, source: { component: 'kubelet', host: node }, involvedObject: { kind: 'Node', name: node } });
    expect(byReason['NodeReady']?.count).toBe(1);
    for (const e of list.items) await kubectl.deleteNamespacedEvent({ namespace: 'default', name: e.metadata!.name! });
  });
});
