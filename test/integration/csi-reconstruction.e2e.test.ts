/**
 * Nothing lost across a restart, end to end: cluster mode on the real control plane (its
 * attach/detach controller included) and containerd, with the lab's upstream CSI mock driver for a
 * CSIDriver that requires attach (the test plays the external attacher, marking the
 * VolumeAttachment attached). A pod on a claim of that driver's PV runs; the kubelet stops, the pod
 * is deleted and the driver stops too; the kubelet starts again before the driver. The volume it
 * finds on disk is reported in the Node's volumesInUse all the while its teardown fails (so the
 * controller must not detach it), and once the driver is back it is unpublished, then unstaged,
 * leaves volumesInUse, the controller detaches it and the pod's directory goes. The restarted
 * kubelet's journal then replays identically, the retries and the registration included.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readJournal } from '../../src/adapters/journal-file/reader.js';
import { runKubeletCommand } from '../support/kubelet-bin.js';
import { csiMockDriverPart, startCsiMockDriver, type CsiMockDriver } from '../support/csi-mock-driver.js';
import { kubeLabPartFor, labApi } from '../support/kube-lab.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode } from '../support/lab-node.js';
import { allOf, containerdEndpoint, describeNeeding } from '../support/real-parts.js';

const DRIVER = 'csi-reconstruct.lab.k8s.io';
const HANDLE = '2';
const UNIQUE = `kubernetes.io/csi/${DRIVER}^${HANDLE}`;
const endpoint = containerdEndpoint();
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface NodeVolumes { status?: { volumesInUse?: string[] } }

/** The journal's records of the kubelet's latest run (after its last header), as text: what it decided since it started. */
function journalSinceStart(rootDir: string): string[] {
  let text = '';
  try {
    text = readFileSync(join(rootDir, 'events', 'latest.jsonl'), 'utf8');
  } catch {
    return [];
  }
  const lines = text.split('\n').filter((l) => l !== '');
  const header = lines.findLastIndex((l) => l.includes('"format":'));
  return lines.slice(header + 1);
}

describeNeeding(allOf(kubeLabPartFor(endpoint), csiMockDriverPart()), 'a CSI volume found on disk at start, on the real control plane and containerd, through the upstream mock driver', () => {
  let n: LabNode;
  let driver: CsiMockDriver | undefined;
  const pv = 'kts-csirecon-pv';
  const root = () => join(n.dir, 'root');
  const attachment = () => `csi-${sha256(`${HANDLE}${DRIVER}${n.node}`)}`;
  const stagingPath = () => join(root(), 'plugins/kubernetes.io/csi', DRIVER, sha256(HANDLE), 'globalmount');
  let uid = '';
  const target = () => join(root(), 'pods', uid, 'volumes/kubernetes.io~csi', pv, 'mount');
  const node = () => n.get<NodeVolumes>(`/api/v1/nodes/${n.node}`);
  const inUse = async () => ((await node()).status?.volumesInUse ?? []).includes(UNIQUE);
  const attachmentExists = async () => (await labApi(n.lab, 'GET', `/apis/storage.k8s.io/v1/volumeattachments/${attachment()}`)).status === 200;
  const cleanup = async () => {
    await labApi(n.lab, 'DELETE', `/api/v1/persistentvolumes/${pv}`);
    await labApi(n.lab, 'DELETE', `/apis/storage.k8s.io/v1/csidrivers/${DRIVER}`);
    await labApi(n.lab, 'DELETE', `/apis/storage.k8s.io/v1/volumeattachments/${attachment()}`);
  };

  beforeAll(async () => {
    n = await startLabNode({ name: 'kts-csirecon', endpoint });
    // The attach/detach controller takes up a pod's volumes when the pod arrives only if its Node is
    // known to it then (managed for attach); a pod it missed waits for its 3-minute resync.
    await n.whileUp('the Node Ready', async () => (await n.nodeObject().catch(() => undefined))?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'), 60_000);
    await cleanup();
    driver = await startCsiMockDriver(root(), DRIVER);
    await n.create('/apis/storage.k8s.io/v1/csidrivers', { metadata: { name: DRIVER }, spec: { attachRequired: true, podInfoOnMount: false, volumeLifecycleModes: ['Persistent'] } });
    await n.create('/api/v1/persistentvolumes', {
      metadata: { name: pv },
      spec: {
        capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', storageClassName: '',
        claimRef: { namespace: n.ns, name: 'data' }, csi: { driver: DRIVER, volumeHandle: HANDLE },
      },
    });
    await n.create(`/api/v1/namespaces/${n.ns}/persistentvolumeclaims`, {
      metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: '', volumeName: pv, resources: { requests: { storage: '1Gi' } } },
    });
    await n.whileUp('the claim Bound', async () => (await n.get<{ status?: { phase?: string } }>(`/api/v1/namespaces/${n.ns}/persistentvolumeclaims/data`)).status?.phase === 'Bound', 60_000);
  }, 180_000);

  afterAll(async () => {
    await n?.dispose();
    await driver?.stop();
    if (n) {
      await cleanup();
      await labApi(n.lab, 'DELETE', `/apis/storage.k8s.io/v1/csinodes/${n.node}`);
    }
  }, 120_000);

  it('runs a pod on the claim once the controller\'s VolumeAttachment is attached; the volume is staged, published and in use', async () => {
    // Nothing is written into the volume: the mock's volumes are plain directories, and its
    // NodeUnpublishVolume after its own restart leaves the target as it is, for the kubelet to remove.
    const created = await n.createPod('on-claim', { containers: [{ name: 'c', image: BUSYBOX, command: ['sh', '-c', SLEEP], volumeMounts: [{ name: 'v', mountPath: '/data' }] }], volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'data' } }] });
    uid = created.metadata.uid;
    await n.whileUp('the controller\'s VolumeAttachment', attachmentExists, 60_000);
    expect((await labApi(n.lab, 'PATCH', `/apis/storage.k8s.io/v1/volumeattachments/${attachment()}/status`,
      { status: { attached: true } }, 'application/merge-patch+json')).status).toBe(200);
    await n.whileUp('on-claim Running', async () => (await n.pod('on-claim'))?.status?.phase === 'Running', 120_000);
    await driver!.settled();
    expect(driver!.nodeCalls('NodeStageVolume').map((c) => c.request.staging_target_path)).toContain(stagingPath());
    expect(driver!.nodeCalls('NodePublishVolume').map((c) => c.request.target_path)).toContain(target());
    await n.whileUp('the volume in the Node\'s volumesInUse', inUse, 30_000);
  }, 240_000);

  it('keeps reporting the volume in use after a restart without its driver, while the pod is gone and every teardown fails', async () => {
    await n.stop();
    expect((await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${n.ns}/pods/on-claim`, { gracePeriodSeconds: 0 })).status).toBe(200);
    await n.whileUp('the pod gone from the API', async () => (await n.pod('on-claim')) === undefined, 30_000).catch(() => undefined);
    expect(await n.pod('on-claim')).toBeUndefined();
    await driver!.stop();
    driver = undefined;
    await n.restart();
    // The restarted kubelet's node status computes the volume in use (its facts are journaled),
    // and a few teardowns fail, backing off.
    await n.whileUp('the restarted kubelet\'s node status facts naming the volume in use', () =>
      journalSinceStart(root()).some((l) => l.includes('"volumesInUse":[') && l.includes(UNIQUE)), 60_000);
    const failures = () => n.kubelet().stderr().split('\n').filter((l) => l.includes('Tearing down a reconstructed volume failed, will retry'));
    await n.whileUp('five failed teardowns of the reconstructed volume', () => failures().length >= 5, 60_000);
    expect(failures()[0]).toContain(`driver name ${DRIVER} not found in the list of registered CSI drivers`);
    // Each retry waits about twice as long as the one before (500 ms, 1 s, 2 s, 4 s).
    const times = failures().slice(0, 5).map((l) => (JSON.parse(l) as { time: number }).time);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(500 * 2 ** i - 50));
    expect(gaps[3]).toBeLessThan(8000);
    expect(await inUse()).toBe(true);
    expect(await attachmentExists()).toBe(true);
    expect(existsSync(target())).toBe(true);
  }, 180_000);

  it('unpublishes, then unstages it once the driver registers, and only then drops it from volumesInUse; the controller detaches it and the pod\'s directory goes', async () => {
    driver = await startCsiMockDriver(root(), DRIVER);
    await n.whileUp('the volume unpublished and unstaged', async () => {
      await driver!.settled();
      return driver!.nodeCalls('NodeUnstageVolume').length > 0;
    }, 60_000);
    const calls = driver!.calls().map((c) => c.method);
    const unpublish = calls.indexOf('/csi.v1.Node/NodeUnpublishVolume');
    expect(unpublish).toBeGreaterThanOrEqual(0);
    expect(calls.indexOf('/csi.v1.Node/NodeUnstageVolume')).toBeGreaterThan(unpublish);
    expect(driver!.nodeCalls('NodeUnpublishVolume').map((c) => c.request.target_path)).toEqual([target()]);
    expect(driver!.nodeCalls('NodeUnstageVolume').map((c) => c.request.staging_target_path)).toEqual([stagingPath()]);
    // The registration reached the volume manager (and its journal, which is written in batches, so
    // it may land after the driver's calls). On a loaded machine a back-off retry may start the
    // teardown first; either way it is done once, in order, as asserted above.
    await n.whileUp('the driver\'s registration journaled', async () => journalSinceStart(root()).some((l) => l.includes('"volumes.driver.registered"')), 30_000);
    await n.whileUp('the volume out of volumesInUse', async () => !(await inUse()), 60_000);
    await n.whileUp('the VolumeAttachment deleted by the controller', async () => !(await attachmentExists()), 90_000);
    await n.whileUp('the pod\'s directory removed', () => !existsSync(join(root(), 'pods', uid)), 30_000);
  }, 240_000);

  it('stops cleanly and leaves a journal that replays identically, the retries and the driver\'s registration among it', async () => {
    expect(await n.stop()).toBe(0);
    const journal = join(root(), 'events', 'latest.jsonl');
    const { records } = readJournal(journal);
    expect(records.some((r) => r.type === 'event' && r.name === 'volumes.driver.registered')).toBe(true);
    // The retries' teardowns, spawned with the back-off they first wait out.
    const spawned = records.filter((r) => r.type === 'action' && r.name === 'spawn').map((r) => JSON.stringify(r.payload)).filter((p) => p.includes('tearDownReconstructedVolume'));
    expect(spawned.some((p) => p.includes('"delayMs":500'))).toBe(true);
    expect(spawned.some((p) => p.includes('"delayMs":1000'))).toBe(true);
    const r = runKubeletCommand('replay', [journal]);
    expect(r.stdout).toMatch(/^replay: identical: \d+ records/);
    expect(r.status).toBe(0);
  }, 60_000);
});
