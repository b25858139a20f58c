/**
 * The CSI volume plugin against the lab's upstream CSI mock driver (real gRPC, real directories;
 * the CSIDriver and Secret reads are a fake answer): what the driver is asked, with Go's paths,
 * ids and attributes, and what is left on disk.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { createCsiVolumePlugin } from '../../../src/adapters/csi/csi-volume-plugin.js';
import { systemClock } from '../../../src/adapters/system-clock.js';
import type { CsiDriverSpec } from '../../../src/domain/csi/csi-driver.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import type { CsiDriverRegistry, RegisteredCsiDriver } from '../../../src/ports/csi-drivers.js';
import type { CsiObjectApi } from '../../../src/ports/csi-objects.js';
import type { CsiPersistentVolume } from '../../../src/ports/csi-volumes.js';
import type { TokenRequestSpec } from '../../../src/ports/volume-sources.js';
import { CSI_MOCK_DRIVER_NAME, csiMockDriverPart, startCsiMockDriver, type CsiMockDriver } from '../../support/csi-mock-driver.js';
import { describeNeeding } from '../../support/real-parts.js';

const driverName = CSI_MOCK_DRIVER_NAME;
const nodeName = 'csi-node';
const sha256 = async (text: string) => (await import('node:crypto')).createHash('sha256').update(text).digest('hex');
const exists = (path: string) => stat(path).then(() => true, () => false);

function pod(uid: string, volumes: Pod['spec']['volumes'] = [], fsGroup?: number): Pod {
  return {
    metadata: { name: `pod-${uid}`, namespace: 'ns1', uid },
    spec: { containers: [{ name: 'c', image: 'busybox' }], volumes, serviceAccountName: 'sa1', ...(fsGroup !== undefined ? { securityContext: { fsGroup } } : {}) },
  } as Pod;
}

function pv(handle: string, name = `pv-${handle}`): CsiPersistentVolume {
  return { pvName: name, source: { driver: driverName, volumeHandle: handle, fsType: 'ext4', volumeAttributes: { color: 'blue' } }, readOnly: false, mountOptions: ['noatime'], accessModes: ['ReadWriteOnce'] };
}

describeNeeding(csiMockDriverPart(), 'the CSI volume plugin on the upstream mock driver', () => {
  let root: string;
  let driver: CsiMockDriver;
  let registered: RegisteredCsiDriver[];
  let csiDriver: CsiDriverSpec | undefined;
  const secretsRead: string[] = [];
  const attachmentsRead: string[] = [];
  /** The Node's status.volumesAttached, as the attach/detach controller would set it. */
  let volumesAttached: string[] = [];
  const registry: CsiDriverRegistry = { get: (name) => registered.find((d) => d.name === name), list: () => registered };
  const api: CsiObjectApi = {
    getCsiDriver: async () => csiDriver,
    getVolumeAttachment: async (name) => {
      attachmentsRead.push(name);
      return { metadata: { name }, status: { attached: true, attachmentMetadata: { device: '/dev/mock' } } };
    },
    getSecret: async (namespace, name) => {
      secretsRead.push(`${namespace}/${name}`);
      return { metadata: { name, namespace }, data: { password: Buffer.from('s3cret').toString('base64') } };
    },
    getNode: async (name) => ({ metadata: { name }, status: { volumesAttached: volumesAttached.map((v) => ({ name: v, devicePath: '' })) } }),
  };
  const plugins: { close(): void }[] = [];
  const tokensAsked: string[] = [];
  const serviceAccountToken = async (spec: TokenRequestSpec) => {
    tokensAsked.push(`${spec.namespace}/${spec.serviceAccountName} ${spec.audience} ${spec.expirationSeconds} ${spec.pod.uid}`);
    return { token: `token-for-${spec.audience}`, expirationTimestampMs: Date.UTC(2030, 0, 1), refreshAtMs: 0 };
  };
  const newPlugin = () => {
    const plugin = createCsiVolumePlugin({ rootDir: root, nodeName, registry, api, serviceAccountToken, clock: systemClock });
    plugins.push(plugin);
    return plugin;
  };

  beforeAll(async () => {
    root = await mkdtemp(`${tmpdir()}/csi-plugin-`);
    driver = await startCsiMockDriver(root);
  });
  afterAll(async () => {
    await driver?.stop();
    await rm(root, { recursive: true, force: true });
  });
  beforeEach(() => {
    registered = [{ name: driverName, endpoint: driver.endpoint, versions: ['1.0.0'], nodeId: driverName, maxVolumesPerNode: 0 }];
    csiDriver = { attachRequired: false, podInfoOnMount: true, volumeLifecycleModes: ['Persistent', 'Ephemeral'] };
    secretsRead.length = 0;
  });
  afterEach(() => {
    for (const p of plugins.splice(0)) p.close();
  });

  it('stages a PV at the global mount path, publishes it at the pod path, and unpublishes then unstages it', async () => {
    const plugin = newPlugin();
    const volume = { ...pv('1'), source: { ...pv('1').source, nodePublishSecretRef: { name: 'pub', namespace: 'sec-ns' } } };
    const result = await plugin.setUpPersistent(pod('uid-a'), 'data', volume);
    const target = `${root}/pods/uid-a/volumes/kubernetes.io~csi/pv-1/mount`;
    const staging = `${root}/plugins/kubernetes.io/csi/${driverName}/${await sha256('1')}/globalmount`;
    expect(result).toEqual({ hostPath: target, changed: false });
    await driver.settled();

    const [stageCall] = driver.nodeCalls('NodeStageVolume');
    expect(stageCall!.request).toMatchObject({ volume_id: '1', staging_target_path: staging, volume_context: { color: 'blue' } });
    expect(stageCall!.request.volume_capability).toMatchObject({ AccessType: { Mount: { fs_type: 'ext4', mount_flags: ['noatime'] } }, access_mode: { mode: 1 } });
    const [publishCall] = driver.nodeCalls('NodePublishVolume');
    expect(publishCall!.request).toMatchObject({
      volume_id: '1', staging_target_path: staging, target_path: target,
      volume_context: {
        color: 'blue', 'csi.storage.k8s.io/pod.name': 'pod-uid-a', 'csi.storage.k8s.io/pod.namespace': 'ns1',
        'csi.storage.k8s.io/pod.uid': 'uid-a', 'csi.storage.k8s.io/serviceAccount.name': 'sa1', 'csi.storage.k8s.io/ephemeral': 'false',
      },
    });
    expect(secretsRead).toEqual(['sec-ns/pub']);
    expect(publishCall!.request.secrets).toEqual({ password: 's3cret' });
    expect(await readFile(`${root}/pods/uid-a/volumes/kubernetes.io~csi/pv-1/vol_data.json`, 'utf8')).toBe(
      `{"attachmentID":"csi-${await sha256(`1${driverName}${nodeName}`)}","driverName":"${driverName}","nodeName":"${nodeName}","specVolID":"pv-1","volumeHandle":"1","volumeLifecycleMode":"Persistent"}\n`);
    expect(JSON.parse(await readFile(`${root}/plugins/kubernetes.io/csi/${driverName}/${await sha256('1')}/vol_data.json`, 'utf8'))).toEqual({ driverName, volumeHandle: '1' });
    expect(await exists(target)).toBe(true);

    // A second set-up of the published target does not fail, nor does one after a restart.
    await expect(plugin.setUpPersistent(pod('uid-a'), 'data', volume)).resolves.toEqual(result);
    await expect(newPlugin().setUpPersistent(pod('uid-a'), 'data', volume)).resolves.toEqual(result);
    await driver.settled();
    expect(driver.nodeCalls('NodeStageVolume')).toHaveLength(1);

    // Torn down by a plugin that never set it up: vol_data.json is all it reads.
    await newPlugin().tearDown('uid-a', 'pv-1');
    await driver.settled();
    expect(driver.nodeCalls('NodeUnpublishVolume').map((c) => c.request)).toEqual([{ volume_id: '1', target_path: target }]);
    expect(driver.nodeCalls('NodeUnstageVolume').map((c) => c.request)).toEqual([{ volume_id: '1', staging_target_path: staging }]);
    expect(await exists(`${root}/pods/uid-a/volumes/kubernetes.io~csi/pv-1`)).toBe(false);
    expect(await exists(`${root}/plugins/kubernetes.io/csi/${driverName}/${await sha256('1')}`)).toBe(false);
  });

  it('publishes an inline volume under its csi-<sha256> id with the ephemeral attribute, and unpublishes it', async () => {
    const plugin = newPlugin();
    const p = pod('uid-b', [{ name: 'scratch', csi: { driver: driverName, volumeAttributes: { size: '1Mi' }, readOnly: true, nodePublishSecretRef: { name: 'inline-secret' } } }]);
    await driver.settled();
    const before = driver.nodeCalls('NodeStageVolume').length;
    const result = await plugin.setUpInline(p, 'scratch');
    const target = `${root}/pods/uid-b/volumes/kubernetes.io~csi/scratch/mount`;
    expect(result.hostPath).toBe(target);
    await driver.settled();
    const publish = driver.nodeCalls('NodePublishVolume').find((c) => c.request.target_path === target)!;
    expect(publish.request).toMatchObject({
      volume_id: `csi-${await sha256('uid-bscratch')}`, readonly: true,
      volume_context: { size: '1Mi', 'csi.storage.k8s.io/ephemeral': 'true', 'csi.storage.k8s.io/pod.name': 'pod-uid-b' },
    });
    expect(publish.request.staging_target_path ?? '').toBe('');
    expect(driver.nodeCalls('NodeStageVolume')).toHaveLength(before);
    expect(secretsRead).toEqual(['ns1/inline-secret']);
    expect(JSON.parse(await readFile(`${root}/pods/uid-b/volumes/kubernetes.io~csi/scratch/vol_data.json`, 'utf8'))).toMatchObject({ specVolID: 'scratch', volumeLifecycleMode: 'Ephemeral' });
    expect(await exists(target)).toBe(true);

    await plugin.tearDown('uid-b', 'scratch');
    await driver.settled();
    expect(driver.nodeCalls('NodeUnpublishVolume').filter((c) => c.request.target_path === target)).toHaveLength(1);
    expect(await exists(`${root}/pods/uid-b/volumes/kubernetes.io~csi/scratch`)).toBe(false);
  });

  it('refuses an inline volume of a driver whose CSIDriver does not list Ephemeral, in Go\'s words', async () => {
    csiDriver = { attachRequired: false, volumeLifecycleModes: ['Persistent'] };
    const p = pod('uid-e', [{ name: 'v', csi: { driver: driverName } }]);
    await expect(newPlugin().setUpInline(p, 'v')).rejects.toThrow(`volume mode "Ephemeral" not supported by driver ${driverName} (only supports ["Persistent"])`);
    csiDriver = undefined;
    await expect(newPlugin().setUpInline(p, 'v')).rejects.toThrow(`volume mode "Ephemeral" not supported by driver ${driverName} (no CSIDriver object)`);
  });

  it('stages a PV two pods use once, and unstages it only after both have unpublished it', async () => {
    const plugin = newPlugin();
    const staged = () => driver.nodeCalls('NodeStageVolume').filter((c) => c.request.volume_id === '2');
    const unstaged = () => driver.nodeCalls('NodeUnstageVolume').filter((c) => c.request.volume_id === '2');
    await Promise.all([plugin.setUpPersistent(pod('uid-c'), 'data', pv('2')), plugin.setUpPersistent(pod('uid-d'), 'data', pv('2'))]);
    await driver.settled();
    expect(staged()).toHaveLength(1);
    expect(new Set(driver.nodeCalls('NodePublishVolume').filter((c) => c.request.volume_id === '2').map((c) => c.request.target_path)).size).toBe(2);

    await plugin.tearDown('uid-c', 'pv-2');
    await driver.settled();
    expect(unstaged()).toHaveLength(0);
    expect(await exists(`${root}/plugins/kubernetes.io/csi/${driverName}/${await sha256('2')}/globalmount`)).toBe(true);
    await plugin.tearDown('uid-d', 'pv-2');
    await driver.settled();
    expect(unstaged()).toHaveLength(1);
  });

  it('hands the CSIDriver\'s bound tokens to the driver and applies the pod\'s fsGroup under the File policy', async () => {
    csiDriver = { attachRequired: false, podInfoOnMount: true, volumeLifecycleModes: ['Ephemeral'], fsGroupPolicy: 'File', tokenRequests: [{ audience: 'vault', expirationSeconds: 600 }, {}] };
    tokensAsked.length = 0;
    const plugin = newPlugin();
    const p = pod('uid-f', [{ name: 'v', csi: { driver: driverName } }], 4321);
    const { hostPath } = await plugin.setUpInline(p, 'v');
    await driver.settled();
    const publish = driver.nodeCalls('NodePublishVolume').find((c) => c.request.target_path === hostPath)!;
    const context = publish.request.volume_context as Record<string, string>;
    expect(JSON.parse(context['csi.storage.k8s.io/serviceAccount.tokens']!)).toEqual({
      '': { token: 'token-for-', expirationTimestamp: '2030-01-01T00:00:00Z' },
      vault: { token: 'token-for-vault', expirationTimestamp: '2030-01-01T00:00:00Z' },
    });
    expect(tokensAsked.sort()).toEqual(['ns1/sa1  3600 uid-f', 'ns1/sa1 vault 600 uid-f']);
    const info = await stat(hostPath);
    expect(info.gid).toBe(4321);
    expect(info.mode & 0o2070).toBe(0o2070);
    await plugin.tearDown('uid-f', 'v');
  });

  it('waits for the VolumeAttachment of a driver that requires attach, and hands its metadata to stage and publish', async () => {
    csiDriver = { podInfoOnMount: true, volumeLifecycleModes: ['Persistent'] };
    const plugin = newPlugin();
    const unique = `kubernetes.io/csi/${driverName}^3`;
    const inUse: string[] = [];
    // Not yet in the Node's volumesAttached: refused in Go's words, reported in use all the same.
    volumesAttached = [];
    await driver.settled();
    const stagesBefore = driver.nodeCalls('NodeStageVolume').length;
    await expect(plugin.setUpPersistent(pod('uid-t'), 'data', pv('3', 'pv-t'), (name) => inUse.push(name))).rejects.toThrow(
      `Volume not attached according to node status for volume "pv-t" (UniqueName: "${unique}") pod "pod-uid-t" (UID: "uid-t") `);
    expect(inUse).toEqual([unique]);
    await driver.settled();
    expect(driver.nodeCalls('NodeStageVolume')).toHaveLength(stagesBefore);

    volumesAttached = ['kubernetes.io/csi/other^3', unique];
    const answer = await plugin.setUpPersistent(pod('uid-t'), 'data', pv('3', 'pv-t'), (name) => inUse.push(name));
    expect(answer.uniqueVolumeName).toBe(unique);
    expect(answer.requiresRemount).toBeUndefined();
    const { hostPath } = answer;
    await driver.settled();
    expect(attachmentsRead).toContain(`csi-${await sha256(`3${driverName}${nodeName}`)}`);
    expect(driver.nodeCalls('NodeStageVolume').filter((c) => c.request.volume_id === '3').at(-1)!.request.publish_context).toEqual({ device: '/dev/mock' });
    expect(driver.nodeCalls('NodePublishVolume').find((c) => c.request.target_path === hostPath)!.request.publish_context).toEqual({ device: '/dev/mock' });
    await plugin.tearDown('uid-t', 'pv-t');
  });

  it('reports no unique name for a PV of a driver without attach, nor checks the Node', async () => {
    volumesAttached = [];
    const inUse: string[] = [];
    const answer = await newPlugin().setUpPersistent(pod('uid-n'), 'data', pv('2', 'pv-n'), (name) => inUse.push(name));
    expect(answer.uniqueVolumeName).toBeUndefined();
    expect(inUse).toEqual([]);
    await newPlugin().tearDown('uid-n', 'pv-n');
  });

  it('publishes again (never stages again) at each set-up of a driver with requiresRepublish, with fresh tokens', async () => {
    csiDriver = { attachRequired: false, podInfoOnMount: true, requiresRepublish: true, volumeLifecycleModes: ['Persistent', 'Ephemeral'], tokenRequests: [{ audience: 'vault' }] };
    tokensAsked.length = 0;
    const plugin = newPlugin();
    await driver.settled();
    const stagesOf1 = () => driver.nodeCalls('NodeStageVolume').filter((c) => c.request.volume_id === '1').length;
    const stagesBefore = stagesOf1();
    const first = await plugin.setUpPersistent(pod('uid-r'), 'data', pv('1', 'pv-r'));
    expect(first.requiresRemount).toBe(true);
    await plugin.setUpPersistent(pod('uid-r'), 'data', pv('1', 'pv-r'));
    await driver.settled();
    expect(stagesOf1() - stagesBefore).toBe(1);
    expect(driver.nodeCalls('NodePublishVolume').filter((c) => c.request.target_path === first.hostPath)).toHaveLength(2);
    expect(tokensAsked).toEqual(['ns1/sa1 vault 3600 uid-r', 'ns1/sa1 vault 3600 uid-r']);

    const inline = pod('uid-r2', [{ name: 'v', csi: { driver: driverName } }]);
    const answer = await plugin.setUpInline(inline, 'v');
    expect(answer.requiresRemount).toBe(true);
    await plugin.setUpInline(inline, 'v');
    await driver.settled();
    expect(driver.nodeCalls('NodePublishVolume').filter((c) => c.request.target_path === answer.hostPath)).toHaveLength(2);
    await plugin.tearDown('uid-r', 'pv-r');
    await plugin.tearDown('uid-r2', 'v');
  });

  it('fails a PV the driver does not know with its answer, leaving no staging or pod directory behind', async () => {
    const failure = newPlugin().setUpPersistent(pod('uid-n'), 'data', pv('9'));
    await expect(failure).rejects.toThrow(/^rpc error: code = NotFound desc = /);
    expect(await exists(`${root}/plugins/kubernetes.io/csi/${driverName}/${await sha256('9')}`)).toBe(false);
    expect(await exists(`${root}/pods/uid-n/volumes/kubernetes.io~csi/pv-9`)).toBe(false);
  });

  it('answers NodeGetVolumeStats of a published PV as bytes and inodes', async () => {
    const plugin = newPlugin();
    await plugin.setUpPersistent(pod('uid-s'), 'data', pv('3'));
    const usage = await plugin.volumeStats('uid-s', 'pv-3');
    expect(usage?.bytes?.total).toBe(100 * 1024 ** 3);
    expect(usage?.abnormal).toBeUndefined();
    await plugin.tearDown('uid-s', 'pv-3');
  });

  it('refuses set-up and teardown while the driver is not registered, in Go\'s words, and tears down once it is', async () => {
    const plugin = newPlugin();
    await plugin.setUpPersistent(pod('uid-r'), 'data', pv('1', 'pv-r'));
    registered = [];
    const notFound = `driver name ${driverName} not found in the list of registered CSI drivers`;
    await expect(plugin.setUpPersistent(pod('uid-q'), 'data', pv('1', 'pv-q'))).rejects.toThrow(`kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: ${notFound}`);
    await expect(plugin.setUpInline(pod('uid-q', [{ name: 'v', csi: { driver: driverName } }]), 'v')).rejects.toThrow(`kubernetes.io/csi: mounter.SetUpAt failed to get CSI client: ${notFound}`);
    await expect(plugin.tearDown('uid-r', 'pv-r')).rejects.toThrow(notFound);
    expect(await exists(`${root}/pods/uid-r/volumes/kubernetes.io~csi/pv-r/vol_data.json`)).toBe(true);
    registered = [{ name: driverName, endpoint: driver.endpoint, versions: ['1.0.0'], nodeId: driverName, maxVolumesPerNode: 0 }];
    await plugin.tearDown('uid-r', 'pv-r');
    await plugin.tearDown('uid-q', 'v');
    expect(await exists(`${root}/pods/uid-r/volumes/kubernetes.io~csi/pv-r`)).toBe(false);
  });

  it('unstages alone (tearDownDevice) only a staged volume no pod publishes, and needs the driver only then', async () => {
    const plugin = newPlugin();
    await plugin.setUpPersistent(pod('uid-s'), 'data', pv('3', 'pv-s'));
    const unstaged = async () => { await driver.settled(); return driver.nodeCalls('NodeUnstageVolume').filter((c) => c.request.volume_id === '3').length; };
    const before = await unstaged();
    registered = [];
    await expect(plugin.tearDownDevice(driverName, '3')).rejects.toThrow(
      `kubernetes.io/csi: attacher.UnmountDevice failed to create newCsiDriverClient: driver name ${driverName} not found in the list of registered CSI drivers`);
    registered = [{ name: driverName, endpoint: driver.endpoint, versions: ['1.0.0'], nodeId: driverName, maxVolumesPerNode: 0 }];
    // Still published by uid-s: nothing is unstaged.
    await plugin.tearDownDevice(driverName, '3');
    expect(await unstaged()).toBe(before);
    await plugin.tearDown('uid-s', 'pv-s');
    expect(await unstaged()).toBe(before + 1);
    // Not staged any more: nothing to do, with or without the driver.
    registered = [];
    await plugin.tearDownDevice(driverName, '3');
    expect(await unstaged()).toBe(before + 1);
  });
});
