/**
 * Cluster mode end to end on the real control plane (kube-lab.ts: kube-apiserver v1.26 with Node
 * authorization and the NodeRestriction, ServiceAccount and other default admission plugins), on the
 * embedded runtime and on containerd (KUBELET_IT_CRI). The node, already joined (a node certificate),
 * registers its Node and becomes Ready, keeps a Lease owned by its Node, runs a pod created with
 * spec.nodeName and reports it Running through the status subresource, posts the container's events
 * with Go's reasons and texts, kills a deleted pod and lets it go from the API, keeps a mirror pod for
 * its static pod (recreated when deleted, deleted when the static pod goes), refuses a pod its Node
 * does not match (Failed with NodeAffinity, a Warning event), posts its Starting event, folds a
 * crashing container's repeated events into one with a count and posts its BackOff, and leaves a
 * journal that replays identically, the real API server's answers included.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runKubeletCommand } from '../support/kubelet-bin.js';
import { kubeLabPart, labApi } from '../support/kube-lab.js';
import { BUSYBOX, SLEEP, startLabNode, type Condition, type LabEvent, type LabNode } from '../support/lab-node.js';
import { allOf, containerdEndpoint, containerdPart, describeNeeding } from '../support/real-parts.js';

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];
const main = (command: string) => [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', command] }];

for (const rt of RUNTIMES) describeNeeding(rt.endpoint === 'embedded' ? kubeLabPart() : allOf(kubeLabPart(), containerdPart()), `cluster mode on the real control plane, ${rt.name} runtime`, () => {
  let n: LabNode;
  let node: string;
  let ns: string;
  let webUid = '';
  let firstRenewal = '';
  let crasherUid = '';
  const withReason = async (selector: Record<string, string>, reason: string, inNs?: string): Promise<LabEvent | undefined> =>
    (await n.events(selector, inNs)).find((e) => e.reason === reason);

  beforeAll(async () => {
    n = await startLabNode({
      name: `kts-cm-${rt.name}`, endpoint: rt.endpoint,
      prepare: (dir) => {
        mkdirSync(join(dir, 'manifests'));
        writeFileSync(join(dir, 'manifests', 'static.json'), JSON.stringify({
          apiVersion: 'v1', kind: 'Pod', metadata: { name: 'static', namespace: `kts-cm-${rt.name}` },
          spec: { terminationGracePeriodSeconds: 1, containers: main(SLEEP) },
        }));
      },
      extraConfig: (dir) => [`staticPodPath: ${join(dir, 'manifests')}`],
    });
    ({ node, ns } = n);
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('registers its Node and reports it Ready', async () => {
    type Node = { metadata: { labels?: Record<string, string> }; status?: { conditions?: Condition[]; daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } } };
    const got = await n.whileUp('the Node Ready', async () => {
      const res = await n.get<Node>(`/api/v1/nodes/${node}`).catch(() => undefined);
      return res?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? res : undefined;
    }, 60_000);
    expect(got.metadata.labels).toMatchObject({ 'kubernetes.io/hostname': node, 'kubernetes.io/os': 'linux' });
    expect(got.status?.daemonEndpoints?.kubeletEndpoint?.Port).toBe(n.port);
  }, 90_000);

  it('keeps a Lease owned by its Node', async () => {
    type Lease = { metadata: { ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string }[] }; spec: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string } };
    const nodeUid = (await n.get<{ metadata: { uid: string } }>(`/api/v1/nodes/${node}`)).metadata.uid;
    const lease = await n.whileUp('the Lease', () => n.get<Lease>(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${node}`).catch(() => undefined), 15_000);
    expect(lease.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: node, uid: nodeUid }]);
    expect(lease.spec).toMatchObject({ holderIdentity: node, leaseDurationSeconds: 40 });
    firstRenewal = lease.spec.renewTime!;
  });

  it('runs a pod created with spec.nodeName and reports it Running through the status subresource', async () => {
    const created = await n.createPod('web', { terminationGracePeriodSeconds: 30, containers: main(SLEEP) });
    webUid = created.metadata.uid;
    // Restarted after each exit: its repeated events are checked later, once a back-off has passed.
    crasherUid = (await n.createPod('crasher', { containers: main('exit 1') })).metadata.uid;
    const pod = await n.whileUp('web Running', async () => {
      const p = await n.pod('web');
      return p?.status?.phase === 'Running' ? p : undefined;
    }, 60_000);
    expect(pod.status?.containerStatuses).toEqual([expect.objectContaining({ name: 'main', ready: true, restartCount: 0, state: { running: expect.objectContaining({ startedAt: expect.any(String) }) } })]);
  }, 90_000);

  it('posts the container\'s Pulled, Created and Started events as Go does, against spec.containers{main}', async () => {
    const seen = await n.whileUp('web\'s Started event', async () => {
      const mine = await n.events({ uid: webUid });
      return mine.some((e) => e.reason === 'Started') ? mine : undefined;
    }, 20_000);
    expect(seen.map((e) => `${e.type} ${e.reason}: ${e.message}`)).toEqual(expect.arrayContaining([
      `Normal Pulled: Container image "${BUSYBOX}" already present on machine`,
      'Normal Created: Created container main',
      'Normal Started: Started container main',
    ]));
    for (const e of seen.filter((x) => ['Pulled', 'Created', 'Started'].includes(x.reason ?? ''))) {
      expect(e.involvedObject).toMatchObject({ kind: 'Pod', apiVersion: 'v1', namespace: ns, name: 'web', uid: webUid, fieldPath: 'spec.containers{main}' });
      expect(e.source).toEqual({ component: 'kubelet', host: node });
    }
  }, 30_000);

  it('kills the pod when it is deleted, lets it go from the API, and posts its Killing event', async () => {
    // A grace period of its own, shorter than the pod's: the API server's, and the kubelet's, to use.
    const deleted = await labApi<{ metadata: { deletionTimestamp?: string; deletionGracePeriodSeconds?: number } }>(n.lab, 'DELETE', `/api/v1/namespaces/${ns}/pods/web`, { gracePeriodSeconds: 2 });
    expect(deleted.status).toBe(200);
    expect(deleted.body.metadata).toMatchObject({ deletionTimestamp: expect.any(String), deletionGracePeriodSeconds: 2 });
    await n.whileUp('web gone from the API', async () => (await n.pod('web')) === undefined, 30_000);
    const killing = await n.whileUp('web\'s Killing event', () => withReason({ uid: webUid }, 'Killing'), 10_000);
    expect(killing).toMatchObject({ type: 'Normal', message: 'Stopping container main', involvedObject: { fieldPath: 'spec.containers{main}' } });
  }, 60_000);

  it('creates a mirror pod for its static pod, owned by its Node, with the static pod\'s status', async () => {
    const mirror = await n.whileUp('the mirror pod Running', async () => {
      const p = await n.pod(`static-${node}`);
      return p?.status?.phase === 'Running' ? p : undefined;
    }, 30_000);
    expect(mirror.metadata.annotations?.['kubernetes.io/config.mirror']).toMatch(/^[0-9a-f]+$/);
    expect(mirror.metadata.annotations?.['kubernetes.io/config.source']).toBe('file');
    expect(mirror.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Node', name: node, controller: true })]);
    expect(mirror.spec.nodeName).toBe(node);
    expect(mirror.status?.containerStatuses?.[0]).toMatchObject({ name: 'main', ready: true });
  }, 40_000);

  it('recreates its mirror pod when it is deleted, and deletes it when its static pod goes', async () => {
    const name = `static-${node}`;
    const before = (await n.pod(name))!;
    // As `kubectl delete pod` does: graceful, with the pod's own grace period.
    expect((await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${ns}/pods/${name}`)).status).toBe(200);
    const again = await n.whileUp('a new mirror pod', async () => {
      const p = await n.pod(name);
      return p && p.metadata.uid !== before.metadata.uid && !p.metadata.deletionTimestamp ? p : undefined;
    }, 30_000);
    expect(again.metadata.annotations?.['kubernetes.io/config.mirror']).toBe(before.metadata.annotations?.['kubernetes.io/config.mirror']);
    rmSync(join(n.dir, 'manifests', 'static.json'));
    await n.whileUp('the mirror pod gone with its static pod', async () => (await n.pod(name)) === undefined, 30_000);
  }, 70_000);

  it('refuses a pod whose nodeSelector its Node lacks: Failed with NodeAffinity through the status subresource, and a Warning event', async () => {
    // The container only has to exist until the test deletes its pod.
    const created = await n.createPod('picky', { nodeSelector: { disktype: 'ssd' }, containers: main('sleep 3600') });
    const pod = await n.whileUp('picky Failed', async () => {
      const p = await n.pod('picky');
      return p?.status?.phase === 'Failed' ? p : undefined;
    }, 30_000);
    expect(pod.status).toMatchObject({ reason: 'NodeAffinity', message: "Pod was rejected: Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector" });
    const event = await n.whileUp('the Warning event', () => withReason({ name: 'picky' }, 'NodeAffinity'), 10_000);
    expect(event).toMatchObject({ type: 'Warning', message: "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector", involvedObject: { kind: 'Pod', uid: created.metadata.uid } });
  }, 40_000);

  it('posts its Starting event on its Node, in the default namespace', async () => {
    const starting = await n.whileUp('the Starting event', () => withReason({ kind: 'Node', name: node }, 'Starting', 'default'), 10_000);
    expect(starting).toMatchObject({ type: 'Normal', message: 'Starting kubelet.', source: { component: 'kubelet', host: node }, involvedObject: { kind: 'Node', name: node } });
  });

  it('renews its Lease every 10 s', async () => {
    await n.whileUp('a Lease renewal', async () =>
      (await n.get<{ spec: { renewTime?: string } }>(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${node}`)).spec.renewTime !== firstRenewal, 15_000);
  }, 20_000);

  it('folds a repeated event into one with a count, and posts Go\'s BackOff for a crashing container', async () => {
    const events = await n.whileUp('crasher\'s second start and its back-off', async () => {
      const mine = await n.events({ uid: crasherUid });
      const started = mine.filter((e) => e.reason === 'Started');
      return started.length === 1 && (started[0]!.count ?? 0) >= 2 && mine.some((e) => e.reason === 'BackOff') ? mine : undefined;
    }, 30_000);
    expect(events.find((e) => e.reason === 'BackOff')).toMatchObject({
      type: 'Warning', message: `Back-off restarting failed container main in pod crasher_${ns}(${crasherUid})`, involvedObject: { fieldPath: 'spec.containers{main}' },
    });
  }, 40_000);

  it('stops cleanly and leaves a journal that replays identically, the real API server\'s answers included', async () => {
    expect(await n.stop()).toBe(0);
    const r = runKubeletCommand('replay', [join(n.dir, 'root', 'events', 'latest.jsonl')]);
    expect(r.stdout).toMatch(/^replay: identical: \d+ records/);
    expect(r.status).toBe(0);
  }, 30_000);
});
