/**
 * CSI volumes in pods, end to end: cluster mode on the real control plane (kube-lab.ts) with the
 * node's own credentials, containerd, and the lab's upstream CSI mock driver registering through
 * `<root>/plugins_registry` as a node-driver-registrar does. A pod with a claim bound to a CSI PV
 * (staged once, then published) and a pod with an inline CSI volume (published only) each write
 * into their volume, and the files are in the publish targets on the node; the claim's volume has
 * statistics in /stats/summary (with its pvcRef) and /metrics from the driver's NodeGetVolumeStats.
 * Deleted, every target is unpublished and the staging path unstaged: the driver's call log says so,
 * counting distinct paths (Go may publish one target twice), and the pods' volume directories go.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { csiMockDriverPart, startCsiMockDriver, type CsiMockDriver } from '../support/csi-mock-driver.js';
import { kubeLabPartFor, labApi } from '../support/kube-lab.js';
import { BUSYBOX, startLabNode, type LabNode } from '../support/lab-node.js';
import { allOf, containerdEndpoint, describeNeeding } from '../support/real-parts.js';

const DRIVER = 'csi-pods.lab.k8s.io';
const endpoint = containerdEndpoint();
// `sleep 1` is the idle loop of a container that must stay up; the test waits on the written file.
const WRITE_THEN_SLEEP = (file: string) => ['sh', '-c', `echo written > ${file} && trap 'exit 0' TERM; while :; do sleep 1; done`];

interface VolumeStats { name: string; pvcRef?: { name: string; namespace: string }; capacityBytes?: number; usedBytes?: number }
interface Summary { pods: { podRef: { name: string }; volume?: VolumeStats[] }[] }

describeNeeding(allOf(kubeLabPartFor(endpoint), csiMockDriverPart()), 'CSI volumes in pods on the real control plane and containerd, through the upstream mock driver', () => {
  let n: LabNode;
  let driver: CsiMockDriver | undefined;
  const pv = `kts-csipods-pv`;
  const root = () => join(n.dir, 'root');
  const uids: Record<string, string> = {};
  const targetOf = (pod: string, dirName: string) => join(root(), 'pods', uids[pod]!, 'volumes', 'kubernetes.io~csi', dirName, 'mount');
  const distinct = (method: string, field: string) => new Set(driver!.nodeCalls(method).map((c) => String(c.request[field]))).size;
  const running = (name: string) => n.whileUp(`${name} Running`, async () => {
    const p = await n.pod(name);
    return p?.status?.phase === 'Running' ? p : undefined;
  }, 90_000);

  beforeAll(async () => {
    n = await startLabNode({ name: 'kts-csipods', endpoint, extraConfig: () => ['volumeStatsAggPeriod: 2s'] });
    driver = await startCsiMockDriver(root(), DRIVER);
    await labApi(n.lab, 'DELETE', `/apis/storage.k8s.io/v1/csidrivers/${DRIVER}`);
    await n.create('/apis/storage.k8s.io/v1/csidrivers', {
      metadata: { name: DRIVER },
      spec: { attachRequired: false, podInfoOnMount: true, volumeLifecycleModes: ['Persistent', 'Ephemeral'] },
    });
    await labApi(n.lab, 'DELETE', `/api/v1/persistentvolumes/${pv}`);
    await n.create('/api/v1/persistentvolumes', {
      metadata: { name: pv },
      spec: {
        capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', storageClassName: '',
        claimRef: { namespace: n.ns, name: 'data' }, csi: { driver: DRIVER, volumeHandle: '1', volumeAttributes: { name: 'Mock Volume 1' } },
      },
    });
    await n.create(`/api/v1/namespaces/${n.ns}/persistentvolumeclaims`, {
      metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: '', volumeName: pv, resources: { requests: { storage: '1Gi' } } },
    });
    await n.whileUp('the claim Bound', async () => (await n.get<{ status?: { phase?: string } }>(`/api/v1/namespaces/${n.ns}/persistentvolumeclaims/data`)).status?.phase === 'Bound', 60_000);
    await n.whileUp('the driver registered in the CSINode', async () => {
      const res = await labApi<{ spec: { drivers: { name: string }[] | null } }>(n.lab, 'GET', `/apis/storage.k8s.io/v1/csinodes/${n.node}`);
      return res.status === 200 && (res.body.spec.drivers ?? []).some((d) => d.name === DRIVER);
    }, 60_000);
  }, 180_000);

  afterAll(async () => {
    await n?.dispose();
    await driver?.stop();
    if (n) {
      await labApi(n.lab, 'DELETE', `/api/v1/persistentvolumes/${pv}`);
      await labApi(n.lab, 'DELETE', `/apis/storage.k8s.io/v1/csidrivers/${DRIVER}`);
      await labApi(n.lab, 'DELETE', `/apis/storage.k8s.io/v1/csinodes/${n.node}`);
    }
  }, 120_000);

  it('runs a pod on a claim of a CSI PV (staged, then published) and one with an inline CSI volume (published), each writing into it', async () => {
    await n.createPod('on-claim', { containers: [{ name: 'c', image: BUSYBOX, command: WRITE_THEN_SLEEP('/data/file'), volumeMounts: [{ name: 'v', mountPath: '/data' }] }], volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'data' } }] });
    await n.createPod('inline', { containers: [{ name: 'c', image: BUSYBOX, command: WRITE_THEN_SLEEP('/data/file'), volumeMounts: [{ name: 'v', mountPath: '/data' }] }], volumes: [{ name: 'v', csi: { driver: DRIVER, volumeAttributes: { size: '1Mi' } } }] });
    uids['on-claim'] = (await running('on-claim')).metadata.uid;
    uids.inline = (await running('inline')).metadata.uid;
    const claimFile = join(targetOf('on-claim', pv), 'file');
    const inlineFile = join(targetOf('inline', 'v'), 'file');
    await n.whileUp('both files on the node', () => existsSync(claimFile) && existsSync(inlineFile), 30_000);
    expect(readFileSync(claimFile, 'utf8')).toBe('written\n');
    expect(readFileSync(inlineFile, 'utf8')).toBe('written\n');
    await driver!.settled();
    const stages = driver!.nodeCalls('NodeStageVolume');
    expect(new Set(stages.map((c) => c.request.staging_target_path))).toEqual(new Set([expect.stringMatching(new RegExp(`/plugins/kubernetes.io/csi/${DRIVER.replace(/\./g, '\\.')}/[0-9a-f]{64}/globalmount$`))]));
    const publishes = driver!.nodeCalls('NodePublishVolume');
    expect(new Set(publishes.map((c) => c.request.target_path))).toEqual(new Set([targetOf('on-claim', pv), targetOf('inline', 'v')]));
    const inline = publishes.find((c) => c.request.target_path === targetOf('inline', 'v'))!;
    expect(inline.request.volume_context).toMatchObject({ 'csi.storage.k8s.io/ephemeral': 'true', 'csi.storage.k8s.io/pod.name': 'inline', 'csi.storage.k8s.io/pod.namespace': n.ns, size: '1Mi' });
  }, 150_000);

  it('reports the claim\'s volume statistics from the driver in /stats/summary and /metrics', async () => {
    const stats = await n.whileUp('the claim volume in /stats/summary', async () => {
      const res = await n.kubeletGet('/stats/summary');
      if (res.status !== 200) return undefined;
      const pod = (JSON.parse(res.body) as Summary).pods.find((p) => p.podRef.name === 'on-claim');
      return pod?.volume?.find((v) => v.name === 'v');
    }, 30_000);
    // The mock's "Mock Volume 1" is 100 GiB.
    expect(stats).toMatchObject({ pvcRef: { name: 'data', namespace: n.ns }, capacityBytes: 100 * 2 ** 30 });
    const metrics = (await n.kubeletGet('/metrics')).body;
    const capacity = new RegExp(`^kubelet_volume_stats_capacity_bytes\\{namespace="${n.ns}",persistentvolumeclaim="data"\\} (\\S+)$`, 'm').exec(metrics);
    expect(Number(capacity?.[1])).toBe(100 * 2 ** 30);
  }, 60_000);

  it('unpublishes both targets and unstages the staging path once the pods are deleted; their volume directories go', async () => {
    const staged = new Set(driver!.nodeCalls('NodeStageVolume').map((c) => c.request.staging_target_path));
    await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${n.ns}/pods/on-claim`);
    await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${n.ns}/pods/inline`);
    await n.whileUp('both pods gone', async () => (await n.pod('on-claim')) === undefined && (await n.pod('inline')) === undefined, 90_000);
    await n.whileUp('every target unpublished and the staging path unstaged', async () => {
      await driver!.settled();
      return distinct('NodeUnpublishVolume', 'target_path') === 2 && distinct('NodeUnstageVolume', 'staging_target_path') === 1;
    }, 60_000);
    expect(new Set(driver!.nodeCalls('NodeUnpublishVolume').map((c) => c.request.target_path))).toEqual(new Set([targetOf('on-claim', pv), targetOf('inline', 'v')]));
    expect(new Set(driver!.nodeCalls('NodeUnstageVolume').map((c) => c.request.staging_target_path))).toEqual(staged);
    await n.whileUp('the pods\' directories removed', () => !existsSync(join(root(), 'pods', uids['on-claim']!)) && !existsSync(join(root(), 'pods', uids.inline!)), 60_000);
  }, 180_000);
});
