/**
 * `kubelet-ts explain` on a journal the kubelet is writing, on containerd and the real control
 * plane: a pod refused at admission (a nodeSelector the node lacks, more cpu than it has), one waiting
 * on a missing ConfigMap until it is created, one whose image cannot be pulled, and a plain one,
 * each told exactly. What must vary from run to run is normalised (normalizeStory): times, the
 * records cited, whether and how often a retried line came again (a back-off's timing), container
 * and sandbox ids, the pod's uid, the test's namespace, the token volume's random suffix and the
 * resolver's address in a failed lookup.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runExplainCommand } from '../../src/bin/commands/explain.js';
import { kubeLabPart } from '../support/kube-lab.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode } from '../support/lab-node.js';
import { allOf, containerdEndpoint, containerdPart, describeNeeding } from '../support/real-parts.js';

/** The story with what varies between runs replaced by placeholders. */
export function normalizeStory(text: string, uid: string): string {
  return text
    .replaceAll(uid, 'UID')
    .replace(/\+\d+\.\d{3}s/g, '+T')
    .replace(/\[#\d+( #\d+)*\]/g, '[#…]')
    .replace(/ \(\d+ times, the last at \+T\)/g, '')
    .replace(/\b[0-9a-f]{12}\b/g, 'ID')
    .replace(/kube-api-access-[a-z0-9]{5}/g, 'kube-api-access-X')
    .replace(/lookup (\S+) on \S+: /g, 'lookup $1 on RESOLVER: ');
}

/** A Kubernetes cpu quantity (`2`, `1500m`) in millicores, as admission's messages give it. */
const milliCpu = (q: string): number => (q.endsWith('m') ? Number(q.slice(0, -1)) : Number(q) * 1000);

describeNeeding(allOf(kubeLabPart(), containerdPart()), 'kubelet-ts explain on a live journal, containerd runtime', () => {
  let n: LabNode;
  const log = () => join(n.dir, 'root', 'events', 'latest.jsonl');

  /** The story `explain` tells of a pod now, normalised. */
  async function story(name: string): Promise<string> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runExplainCommand([log(), `${n.ns}/${name}`], { stdout: (s) => out.push(s), stderr: (s) => err.push(s) });
    if (code !== 0) return `exit ${code}: ${err.join('')}`;
    const uid = /\(uid ([^)]+)\)/.exec(out.join(''))?.[1] ?? '';
    return normalizeStory(out.join(''), uid).replaceAll(n.ns, 'NS');
  }

  beforeAll(async () => {
    n = await startLabNode({ name: 'kts-explain', endpoint: containerdEndpoint() });
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('tells a plain pod: admitted, volumes, sandbox, container, the status sent', async () => {
    await n.createPod('plain', { containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP] }] });
    await n.whileUp('plain Running', async () => (await n.pod('plain'))?.status?.phase === 'Running', 60_000);
    await expect.poll(() => story('plain'), { timeout: 20_000 }).toBe([
      'pod NS/plain (uid UID)',
      '  +T  received from the API server  [#…]',
      '  +T  admitted  [#…]',
      '  +T  volumes mounted: kube-api-access-X  [#…]',
      '  +T  sandbox created (ID)  [#…]',
      '  +T  container main started (ID)  [#…]',
      '  +T  status sent: Running; Ready=True; main running  [#…]',
      '',
    ].join('\n'));
  }, 90_000);

  it('tells pods refused at admission: the nodeSelector label the node lacks, the cpu it does not have', async () => {
    await n.createPod('picky', { nodeSelector: { disktype: 'ssd' }, containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP] }] });
    await n.createPod('greedy', { containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP], resources: { requests: { cpu: '1000' } } }] });
    for (const name of ['picky', 'greedy']) await n.whileUp(`${name} Failed`, async () => (await n.pod(name))?.status?.phase === 'Failed', 60_000);
    await expect.poll(() => story('picky'), { timeout: 20_000 }).toBe([
      'pod NS/picky (uid UID)',
      '  +T  received from the API server  [#…]',
      "  +T  refused at admission: NodeAffinity: Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector (nodeSelector disktype=ssd: the node has no label disktype)  [#…]",
      '  +T  status sent: Failed (NodeAffinity)  [#…]',
      '',
    ].join('\n'));
    const capacity = milliCpu((await n.nodeObject()).status?.allocatable?.cpu ?? '');
    await expect.poll(() => story('greedy'), { timeout: 20_000 }).toBe([
      'pod NS/greedy (uid UID)',
      '  +T  received from the API server  [#…]',
      `  +T  refused at admission: OutOfcpu: Node didn't have enough resource: cpu, requested: 1000000, used: 0, capacity: ${capacity}  [#…]`,
      '  +T  status sent: Failed (OutOfcpu)  [#…]',
      '',
    ].join('\n'));
  }, 90_000);

  it('tells a pod waiting on a missing ConfigMap, then starting once it is created', async () => {
    await n.createPod('waits', {
      containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP], volumeMounts: [{ name: 'cfg', mountPath: '/cfg' }] }],
      volumes: [{ name: 'cfg', configMap: { name: 'late' } }],
    });
    await n.whileUp('a FailedMount event', async () => (await n.events({ name: 'waits' })).find((e) => e.reason === 'FailedMount'), 30_000);
    await n.create(`/api/v1/namespaces/${n.ns}/configmaps`, { metadata: { name: 'late' }, data: { k: 'v' } });
    await n.whileUp('waits Running', async () => (await n.pod('waits'))?.status?.phase === 'Running', 60_000);
    await expect.poll(() => story('waits'), { timeout: 20_000 }).toBe([
      'pod NS/waits (uid UID)',
      '  +T  received from the API server  [#…]',
      '  +T  admitted  [#…]',
      '  +T  waiting for volumes: cfg, kube-api-access-X  [#…]',
      '  +T  FailedMount: MountVolume.SetUp failed for volume "cfg" : configmap "late" not found  [#…]',
      '  +T  volumes mounted: cfg, kube-api-access-X  [#…]',
      '  +T  sandbox created (ID)  [#…]',
      '  +T  container main started (ID)  [#…]',
      '  +T  status sent: Running; Ready=True; main running  [#…]',
      '',
    ].join('\n'));
  }, 120_000);

  // Last: the kubelet is stopped once the back-off shows, so the log ends before the next pull (10 s on).
  it('tells an image that cannot be pulled and its back-off', async () => {
    const image = 'kubelet-ts.invalid/does-not-exist:1.0';
    await n.createPod('nopull', { containers: [{ name: 'main', image, imagePullPolicy: 'Always' }] });
    await n.whileUp('nopull in ImagePullBackOff', async () =>
      (await n.pod('nopull'))?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff', 90_000);
    await n.stop();
    const pullFailed = `container main: ErrImagePull: Failed to pull image "${image}": PullImage: failed to pull and unpack image "${image}": failed to resolve reference "${image}": `
      + `failed to do request: Head "https://kubelet-ts.invalid/v2/does-not-exist/manifests/1.0": dial tcp: lookup kubelet-ts.invalid on RESOLVER: no such host`;
    expect(await story('nopull')).toBe([
      'pod NS/nopull (uid UID)',
      '  +T  received from the API server  [#…]',
      '  +T  admitted  [#…]',
      '  +T  volumes mounted: kube-api-access-X  [#…]',
      '  +T  sandbox created (ID)  [#…]',
      `  +T  ${pullFailed}  [#…]`,
      '  +T  status sent: Pending; Ready=False (ContainersNotReady); main waiting (ErrImagePull)  [#…]',
      `  +T  container main: ImagePullBackOff: Back-off pulling image "${image}"  [#…]`,
      '  +T  status sent: Pending; Ready=False (ContainersNotReady); main waiting (ImagePullBackOff)  [#…]',
      '',
    ].join('\n'));
  }, 120_000);
});
