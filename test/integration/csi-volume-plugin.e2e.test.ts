/**
 * The CSI volume plugin with every part real but the kubelet around it: the run's v1.26 control
 * plane read as system:node:<name> (so the Node authorizer judges the CSIDriver, Secret and token
 * reads), the lab's upstream CSI mock driver, and a pod bound to the node with an inline CSI volume.
 * The daemon end to end needs the plugin registration (the registry is built by hand here).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCsiVolumePlugin } from '../../src/adapters/csi/csi-volume-plugin.js';
import { systemClock } from '../../src/adapters/system-clock.js';
import { createTokenManager } from '../../src/adapters/volume-sources/token-manager.js';
import type { Pod } from '../../src/domain/pod/types.js';
import type { ApiClients } from '../../src/ports/apiserver.js';
import type { Clock } from '../../src/ports/clock.js';
import { CSI_MOCK_DRIVER_NAME, csiMockDriverPart, startCsiMockDriver, type CsiMockDriver } from '../support/csi-mock-driver.js';
import { until } from '../support/daemon.js';
import { kubeLab, kubeLabPart, labApi, type KubeLab } from '../support/kube-lab.js';
import { labNodeClients } from '../support/lab-clients.js';
import { allOf, describeNeeding } from '../support/real-parts.js';

const NS = 'kts-csi-plugin';
const NODE = 'kts-csi-plugin-node';
/** A second mock under a name of its own, whose CSIDriver requires attach. */
const ATTACHED = 'csi-attach.lab.k8s.io';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describeNeeding(allOf(kubeLabPart(), csiMockDriverPart()), 'the CSI volume plugin on the real control plane and the upstream mock driver', () => {
  let lab: KubeLab;
  let root: string;
  let driver: CsiMockDriver;
  let attached: CsiMockDriver;
  let api: ApiClients;

  beforeAll(async () => {
    lab = await kubeLab();
    root = await mkdtemp(`${tmpdir()}/kts-csi-plugin-`);
    driver = await startCsiMockDriver(root);
    attached = await startCsiMockDriver(root, ATTACHED);
    await labApi(lab, 'POST', '/api/v1/namespaces', { metadata: { name: NS } });
    await until(`${NS}'s default ServiceAccount`, async () => (await labApi(lab, 'GET', `/api/v1/namespaces/${NS}/serviceaccounts/default`)).status === 200, 30_000);
    await labApi(lab, 'DELETE', `/apis/storage.k8s.io/v1/csidrivers/${CSI_MOCK_DRIVER_NAME}`);
    const created = await labApi(lab, 'POST', '/apis/storage.k8s.io/v1/csidrivers', {
      apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: CSI_MOCK_DRIVER_NAME },
      spec: { attachRequired: false, podInfoOnMount: true, volumeLifecycleModes: ['Persistent', 'Ephemeral'], tokenRequests: [{ audience: 'csi-audience', expirationSeconds: 3600 }] },
    });
    expect(created.status).toBe(201);
    await labApi(lab, 'DELETE', `/apis/storage.k8s.io/v1/csidrivers/${ATTACHED}`);
    expect((await labApi(lab, 'POST', '/apis/storage.k8s.io/v1/csidrivers', {
      apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: ATTACHED }, spec: { attachRequired: true, podInfoOnMount: false },
    })).status).toBe(201);
    api = await labNodeClients(lab, NODE, root);
  }, 300_000);

  afterAll(async () => {
    api?.close();
    await driver?.stop();
    await attached?.stop();
    if (lab) {
      await labApi(lab, 'DELETE', `/api/v1/namespaces/${NS}`);
      await labApi(lab, 'DELETE', `/apis/storage.k8s.io/v1/csidrivers/${CSI_MOCK_DRIVER_NAME}`);
      await labApi(lab, 'DELETE', `/apis/storage.k8s.io/v1/csidrivers/${ATTACHED}`);
      await labApi(lab, 'DELETE', `/apis/storage.k8s.io/v1/volumeattachments/csi-${sha256(`1${ATTACHED}${NODE}`)}`);
      await labApi(lab, 'DELETE', `/api/v1/persistentvolumes/pv-adc`);
      await labApi(lab, 'DELETE', `/apis/storage.k8s.io/v1/volumeattachments/csi-${sha256(`2${ATTACHED}${NODE}`)}`);
      await labApi(lab, 'DELETE', `/api/v1/nodes/${NODE}`);
    }
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('publishes a bound pod\'s inline volume with its secret, pod info and bound token, and unpublishes it', async () => {
    expect((await labApi(lab, 'POST', `/api/v1/namespaces/${NS}/secrets`, { metadata: { name: 'csi-creds' }, stringData: { user: 'alice' } })).status).toBe(201);
    const posted = await labApi<Pod>(lab, 'POST', `/api/v1/namespaces/${NS}/pods`, {
      metadata: { name: 'inline' },
      spec: {
        nodeName: NODE,
        containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'scratch', mountPath: '/data' }] }],
        volumes: [{ name: 'scratch', csi: { driver: CSI_MOCK_DRIVER_NAME, volumeAttributes: { size: '1Mi' }, nodePublishSecretRef: { name: 'csi-creds' } } }],
      },
    });
    expect(posted.status).toBe(201);
    const pod = posted.body;
    const tokens = createTokenManager({ api: api.main, clock: systemClock, logger: pino({ level: 'silent' }) });
    const plugin = createCsiVolumePlugin({
      rootDir: root,
      nodeName: NODE,
      registry: { get: (name) => (name === CSI_MOCK_DRIVER_NAME ? { name, endpoint: driver.endpoint, versions: ['1.0.0'], nodeId: name, maxVolumesPerNode: 0 } : undefined), list: () => [] },
      api: api.main,
      serviceAccountToken: (spec) => tokens.get(spec),
      clock: systemClock,
    });
    try {
      const { hostPath } = await plugin.setUpInline(pod, 'scratch');
      expect(hostPath).toBe(`${root}/pods/${pod.metadata.uid}/volumes/kubernetes.io~csi/scratch/mount`);
      await driver.settled();
      const publish = driver.nodeCalls('NodePublishVolume').find((c) => c.request.target_path === hostPath)!;
      expect(publish.request.secrets).toEqual({ user: 'alice' });
      const context = publish.request.volume_context as Record<string, string>;
      expect(context).toMatchObject({
        size: '1Mi', 'csi.storage.k8s.io/ephemeral': 'true', 'csi.storage.k8s.io/pod.name': 'inline',
        'csi.storage.k8s.io/pod.namespace': NS, 'csi.storage.k8s.io/pod.uid': pod.metadata.uid, 'csi.storage.k8s.io/serviceAccount.name': 'default',
      });
      const token = (JSON.parse(context['csi.storage.k8s.io/serviceAccount.tokens']!) as Record<string, { token: string; expirationTimestamp: string }>)['csi-audience']!;
      expect(token.token.split('.')).toHaveLength(3);
      expect(token.expirationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

      await plugin.tearDown(pod.metadata.uid, 'scratch');
      await driver.settled();
      expect(driver.nodeCalls('NodeUnpublishVolume').filter((c) => c.request.target_path === hostPath)).toHaveLength(1);
      await expect(stat(`${root}/pods/${pod.metadata.uid}/volumes/kubernetes.io~csi/scratch`)).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      plugin.close();
      tokens.close();
    }
  });


  /** Waits the plugin has armed on its clock: each attachment poll that found it not attached arms one. */
  let armed = 0;
  const countingClock: Clock = {
    ...systemClock,
    setTimeout: (fn, ms) => {
      armed++;
      return systemClock.setTimeout(fn, ms);
    },
  };
  /** The plugin over the attach-requiring mock driver alone, for this file's Node, the attachment polled every 200 ms. */
  const attachedDriverPlugin = () => createCsiVolumePlugin({
    rootDir: root,
    nodeName: NODE,
    registry: { get: (n) => (n === ATTACHED ? { name: n, endpoint: attached.endpoint, versions: ['1.0.0'], nodeId: n, maxVolumesPerNode: 0 } : undefined), list: () => [] },
    api: api.main,
    clock: countingClock,
    attachPollMs: 200,
  });
  it('waits for the Node\'s volumesAttached and the VolumeAttachment of a driver that requires attach, read as the node, then stages and publishes with its metadata', async () => {
    const name = `csi-${sha256(`1${ATTACHED}${NODE}`)}`;
    const unique = `kubernetes.io/csi/${ATTACHED}^1`;
    // The Node without the controller-managed-attach-detach annotation: the attach/detach controller
    // leaves its status alone, so the test sets volumesAttached as the controller would.
    expect([201, 409]).toContain((await labApi(lab, 'POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } })).status);
    expect((await labApi(lab, 'POST', '/apis/storage.k8s.io/v1/volumeattachments', {
      apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name },
      spec: { attacher: ATTACHED, nodeName: NODE, source: { persistentVolumeName: 'pv-attached' } },
    })).status).toBe(201);
    const plugin = attachedDriverPlugin();
    const pod = { metadata: { name: 'pv-pod', namespace: NS, uid: 'pv-pod-uid' }, spec: { containers: [] } } as unknown as Pod;
    const pv = { pvName: 'pv-attached', source: { driver: ATTACHED, volumeHandle: '1' }, readOnly: false, mountOptions: [], accessModes: ['ReadWriteOnce'] };
    try {
      const inUse: string[] = [];
      await expect(plugin.setUpPersistent(pod, 'data', pv, (n) => inUse.push(n))).rejects.toThrow(
        `Volume not attached according to node status for volume "pv-attached" (UniqueName: "${unique}") pod "pv-pod" (UID: "pv-pod-uid") `);
      expect(inUse).toEqual([unique]);
      expect((await labApi(lab, 'PATCH', `/api/v1/nodes/${NODE}/status`,
        { status: { volumesAttached: [{ name: unique, devicePath: '' }] } }, 'application/merge-patch+json')).status).toBe(200);
      const armedBefore = armed;
      const setUp = plugin.setUpPersistent(pod, 'data', pv);
      // Three of the plugin's attachment polls find it not attached; none may stage the volume.
      await until('three attachment polls', async () => armed - armedBefore >= 3, 10_000);
      await attached.settled();
      expect(attached.nodeCalls('NodeStageVolume')).toHaveLength(0);
      expect((await labApi(lab, 'PATCH', `/apis/storage.k8s.io/v1/volumeattachments/${name}/status`,
        { status: { attached: true, attachmentMetadata: { lun: '7' } } }, 'application/merge-patch+json')).status).toBe(200);
      const { hostPath } = await setUp;
      await attached.settled();
      expect(attached.nodeCalls('NodeStageVolume').map((c) => c.request.publish_context)).toEqual([{ lun: '7' }]);
      expect(attached.nodeCalls('NodePublishVolume').find((c) => c.request.target_path === hostPath)!.request.publish_context).toEqual({ lun: '7' });
      await plugin.tearDown('pv-pod-uid', 'pv-attached');
      await attached.settled();
      expect(attached.nodeCalls('NodeUnstageVolume')).toHaveLength(1);
    } finally {
      plugin.close();
    }
  });
  it('is put in the Node\'s volumesAttached by the real attach/detach controller once its VolumeAttachment is attached, and only then staged', async () => {
    const unique = `kubernetes.io/csi/${ATTACHED}^2`;
    const vaName = `csi-${sha256(`2${ATTACHED}${NODE}`)}`;
    // The node as a kubelet with enableControllerAttachDetach registers it: the controller manages its attachments.
    expect([201, 409]).toContain((await labApi(lab, 'POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } })).status);
    expect((await labApi(lab, 'PATCH', `/api/v1/nodes/${NODE}`,
      { metadata: { annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' } } }, 'application/merge-patch+json')).status).toBe(200);
    expect((await labApi(lab, 'POST', '/api/v1/persistentvolumes', {
      apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-adc' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', csi: { driver: ATTACHED, volumeHandle: '2' }, claimRef: { namespace: NS, name: 'adc' } },
    })).status).toBe(201);
    expect((await labApi(lab, 'POST', `/api/v1/namespaces/${NS}/persistentvolumeclaims`, {
      metadata: { name: 'adc' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeName: 'pv-adc', storageClassName: '' },
    })).status).toBe(201);
    await until('the claim bound', async () => (await labApi<{ status?: { phase?: string } }>(lab, 'GET', `/api/v1/namespaces/${NS}/persistentvolumeclaims/adc`)).body.status?.phase === 'Bound', 60_000);
    const posted = await labApi<Pod>(lab, 'POST', `/api/v1/namespaces/${NS}/pods`, {
      metadata: { name: 'adc' },
      spec: { nodeName: NODE, containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'adc' } }] },
    });
    expect(posted.status).toBe(201);
    const plugin = attachedDriverPlugin();
    const pv = { pvName: 'pv-adc', source: { driver: ATTACHED, volumeHandle: '2' }, readOnly: false, mountOptions: [], accessModes: ['ReadWriteOnce'] };
    try {
      // The controller makes the VolumeAttachment; nothing attaches it, so the node must wait.
      await until('the controller\'s VolumeAttachment', async () => (await labApi(lab, 'GET', `/apis/storage.k8s.io/v1/volumeattachments/${vaName}`)).status === 200, 60_000);
      await expect(plugin.setUpPersistent(posted.body, 'data', pv)).rejects.toThrow('Volume not attached according to node status');
      await attached.settled();
      expect(attached.nodeCalls('NodeStageVolume').filter((c) => c.request.volume_id === '2')).toHaveLength(0);
      // The external attacher's part: the attachment is attached; the controller records it on the Node.
      expect((await labApi(lab, 'PATCH', `/apis/storage.k8s.io/v1/volumeattachments/${vaName}/status`,
        { status: { attached: true } }, 'application/merge-patch+json')).status).toBe(200);
      await until('the volume in the Node\'s volumesAttached', async () => {
        const node = (await labApi<{ status?: { volumesAttached?: { name: string }[] } }>(lab, 'GET', `/api/v1/nodes/${NODE}`)).body;
        return (node.status?.volumesAttached ?? []).some((v) => v.name === unique);
      }, 90_000);
      const answer = await plugin.setUpPersistent(posted.body, 'data', pv);
      expect(answer.uniqueVolumeName).toBe(unique);
      await attached.settled();
      expect(attached.nodeCalls('NodeStageVolume').filter((c) => c.request.volume_id === '2')).toHaveLength(1);
      await plugin.tearDown(posted.body.metadata.uid, 'pv-adc');
    } finally {
      plugin.close();
    }
  }, 240_000);
});
