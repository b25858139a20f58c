/**
 * RuntimeClasses and user namespaces end to end: nothing runs weaker than it asked.
 * - On the real control plane (kube-lab.ts): a pod whose RuntimeClass names a handler containerd does
 *   not have never runs (no sandbox, no runc), its FailedCreatePodSandBox event carrying containerd's
 *   own error; a pod whose RuntimeClass was deleted after admission (which refuses a missing one)
 *   fails with Go's NotFound text; a class
 *   naming containerd's runc handler runs the pod on it, with the overhead the API server's
 *   RuntimeClass admission copied into spec.overhead. The embedded runtime refuses any handler.
 * - Standalone, with static pods (the v1.26 API server drops hostUsers with its gate off):
 *   `hostUsers: false` on containerd 1.6, which has no user namespace support (its Status reports no
 *   runtime handlers), fails the pod with an error naming spec.hostUsers and creates no sandbox; the
 *   embedded runtime likewise.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCriClient } from '../../src/adapters/cri-grpc/index.js';
import { kubeLabPartFor, labApi } from '../support/kube-lab.js';
import { BUSYBOX, SLEEP, startLabNode, type LabEvent, type LabNode } from '../support/lab-node.js';
import { startStaticPodKubelet, until, type StaticPodKubelet } from '../support/daemon.js';
import { containerdEndpoint, describeNeeding, partForEndpoint } from '../support/real-parts.js';

const RUNTIME_CLASSES = '/apis/node.k8s.io/v1/runtimeclasses';
const containerd = containerdEndpoint();

/** The runtime's sandboxes of a pod (containerd only: the embedded one lives inside the kubelet). */
async function sandboxesOf(uid: string) {
  const cri = createCriClient({ endpoint: containerd });
  try {
    return await cri.runtime.listPodSandbox({ label_selector: { 'io.kubernetes.pod.uid': uid } });
  } finally {
    cri.close();
  }
}

const RUNTIMES = [
  { name: 'containerd', endpoint: containerd },
  { name: 'embedded', endpoint: 'embedded' },
];

for (const rt of RUNTIMES) describeNeeding(kubeLabPartFor(rt.endpoint), `RuntimeClass on the real control plane, ${rt.name} runtime`, () => {
  let n: LabNode;
  const classes: string[] = [];
  const className = (what: string) => `${n.node}-${what}`;

  const createClass = async (what: string, body: Record<string, unknown>) => {
    const name = className(what);
    classes.push(name);
    await n.create(RUNTIME_CLASSES, { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name }, ...body });
    return name;
  };
  /** The pod's FailedCreatePodSandBox event, once there. */
  const sandboxFailure = (uid: string) => n.whileUp(`the FailedCreatePodSandBox event of ${uid}`, async () =>
    (await n.events({ uid })).find((e: LabEvent) => e.reason === 'FailedCreatePodSandBox'), 60_000);
  const podSpec = (runtimeClassName: string) => ({ runtimeClassName, containers: [{ name: 'c', image: BUSYBOX, command: ['sh', '-c', SLEEP] }] });

  beforeAll(async () => {
    n = await startLabNode({ name: `kts-rc-${rt.name}`, endpoint: rt.endpoint });
  }, 120_000);

  afterAll(async () => {
    for (const name of classes) await labApi(n.lab, 'DELETE', `${RUNTIME_CLASSES}/${name}`);
    await n?.dispose();
  }, 120_000);

  it('never runs a pod whose RuntimeClass names a handler the runtime does not have: the event carries the runtime\'s error', async () => {
    const rc = await createClass('nosuch', { handler: 'nosuch' });
    const pod = await n.createPod('unknown-handler', podSpec(rc));
    const event = await sandboxFailure(pod.metadata.uid);
    expect(event.type).toBe('Warning');
    expect(event.message).toMatch(/^Failed to create pod sandbox: /);
    if (rt.name === 'containerd') {
      expect(event.message).toContain('no runtime for "nosuch" is configured');
      expect(await sandboxesOf(pod.metadata.uid)).toEqual([]);
    } else {
      expect(event.message).toContain('runtime_handler "nosuch" is not supported by the embedded runtime');
    }
    const status = (await n.pod('unknown-handler'))?.status;
    expect(status?.phase).toBe('Pending');
    expect(status?.containerStatuses?.every((c) => c.state?.running === undefined) ?? true).toBe(true);
  }, 90_000);

  it('fails a pod whose RuntimeClass was deleted after admission with Go\'s NotFound message', async () => {
    // The API server's RuntimeClass admission refuses a pod naming a class that does not exist, so
    // the class goes after the pod is created, while the kubelet is down (else it would start it).
    await n.stop();
    const gone = await createClass('gone', { handler: 'runc' });
    const pod = await n.createPod('class-gone', podSpec(gone));
    await labApi(n.lab, 'DELETE', `${RUNTIME_CLASSES}/${gone}`);
    await n.restart();
    const want = `Failed to create pod sandbox: runtimeclass.node.k8s.io "${gone}" not found`;
    const event = await n.whileUp('the NotFound event', async () =>
      (await n.events({ uid: pod.metadata.uid })).find((e: LabEvent) => e.reason === 'FailedCreatePodSandBox' && e.message === want), 60_000);
    expect(event.type).toBe('Warning');
    expect((await n.pod('class-gone'))?.status?.phase).toBe('Pending');
    if (rt.name === 'containerd') expect(await sandboxesOf(pod.metadata.uid)).toEqual([]);
  }, 120_000);

  if (rt.name === 'containerd') {
    it('runs a pod on the handler its RuntimeClass names, with the overhead admission copied into its spec', async () => {
      const rc = await createClass('runc', { handler: 'runc', overhead: { podFixed: { cpu: '10m', memory: '16Mi' } } });
      const created = await n.createPod('on-runc', podSpec(rc));
      expect(created.spec.overhead).toEqual({ cpu: '10m', memory: '16Mi' });
      await n.whileUp('on-runc running', async () => (await n.pod('on-runc'))?.status?.containerStatuses?.[0]?.state?.running, 60_000);
      const [sandbox] = await sandboxesOf(created.metadata.uid);
      expect(sandbox?.runtime_handler).toBe('runc');
    }, 90_000);
  }
});

for (const rt of RUNTIMES) describeNeeding(partForEndpoint(rt.endpoint), `hostUsers: false, standalone, ${rt.name} runtime`, () => {
  const NODE = `node-userns-${rt.name}`;
  let k: StaticPodKubelet;

  beforeAll(async () => {
    k = await startStaticPodKubelet({ endpoint: rt.endpoint, nodeName: NODE, prefix: 'kts-userns-' });
    writeFileSync(join(k.manifests, 'userns.json'), JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'userns' },
      spec: { hostUsers: false, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP] }] },
    }));
  }, 60_000);

  afterAll(async () => {
    await k?.dispose((name) => name.endsWith(`-${NODE}`));
  }, 60_000);

  it('fails the pod with an error naming spec.hostUsers, and runs nothing in the host\'s user namespace', async () => {
    const refusal = rt.name === 'containerd'
      ? 'spec.hostUsers is false but the pod cannot get a user namespace of its own: the handler \\"\\" is not known: the runtime reports no runtime handlers, so no user namespace support'
      : 'spec.hostUsers is false but the pod cannot get a user namespace of its own: RuntimeClass handler \\"\\" does not support user namespaces';
    // Standalone there is no API server for the event: the failed sandbox's error line carries the refusal.
    await until('the refusal in the log', () => k.stderr().split('\n').some((l) => l.includes('CreatePodSandbox for pod failed') && l.includes(refusal)), 30_000, () => k.stderr());
    const res = await fetch(`http://${k.debug}/debug/pods`);
    const pod = ((await res.json()) as { pods: { name: string; status: { containerStatuses?: { state?: { running?: object; waiting?: { reason?: string } } }[] } | null }[] }).pods
      .find((p) => p.name === `userns-${NODE}`);
    expect(pod?.status?.containerStatuses?.[0]?.state?.running).toBeUndefined();
    if (rt.name === 'containerd') {
      const cri = createCriClient({ endpoint: containerd });
      try {
        expect((await cri.runtime.listPodSandbox()).filter((s) => s.metadata.name === `userns-${NODE}`)).toEqual([]);
      } finally {
        cri.close();
      }
    }
  }, 60_000);
});
