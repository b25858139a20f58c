/**
 * Claims through the volume plugins, over real mounts (root): the claim and PV come from a fake of
 * the ClaimApi port, CSI PVs go to a fake of the CsiVolumePlugin port that records its calls.
 */
import { execFileSync } from 'node:child_process';
import { lstat, mkdir, readFile, readlink, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemMounter } from '../../../src/adapters/volumes/mount-table.js';
import { createVolumePlugins, type VolumeContentWriter } from '../../../src/adapters/volumes/volume-plugins.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import type { Volume } from '../../../src/domain/volumes/sources.js';
import type { ClaimApi, KubeObject, NodeObject } from '../../../src/ports/apiserver.js';
import type { CsiPersistentVolume, CsiVolumePlugin } from '../../../src/ports/csi-volumes.js';
import type { VolumePlugins } from '../../../src/ports/volumes.js';
import { mountInfoLine, mountPointsUnder, needsRoot, notRoot, tempRoot, unmountAndRemove } from './mount-helpers.js';

class FakeClaimApi implements ClaimApi {
  claims = new Map<string, KubeObject>();
  volumes = new Map<string, KubeObject>();
  labels: Record<string, string> = { 'kubernetes.io/hostname': 'node-a' };
  reads: string[] = [];
  async getPersistentVolumeClaim(namespace: string, name: string) {
    this.reads.push(`pvc ${namespace}/${name}`);
    return this.claims.get(`${namespace}/${name}`);
  }
  async getPersistentVolume(name: string) {
    this.reads.push(`pv ${name}`);
    return this.volumes.get(name);
  }
  async getNode(name: string): Promise<NodeObject> {
    return { metadata: { name, labels: this.labels } } as NodeObject;
  }
}

class FakeCsi implements CsiVolumePlugin {
  calls: unknown[][] = [];
  /** The driver requires attach: the answer names the volume for volumesInUse. */
  attachable = false;
  /** The attach/detach controller has not attached it yet: the set-up fails after naming it in use. */
  notAttached = false;
  tearDownFails = false;
  async setUpPersistent(pod: Pod, volumeName: string, pv: CsiPersistentVolume, reportInUse?: (uniqueVolumeName: string) => void) {
    this.calls.push(['setUpPersistent', pod.metadata.uid, volumeName, pv]);
    const uniqueVolumeName = `kubernetes.io/csi/${pv.source.driver}^${pv.source.volumeHandle}`;
    if (this.attachable) reportInUse?.(uniqueVolumeName);
    if (this.notAttached) throw new Error('Volume not attached according to node status');
    return { hostPath: `/csi/${pv.pvName}/mount`, changed: false, ...(this.attachable ? { uniqueVolumeName } : {}) };
  }
  async setUpInline(): Promise<never> { throw new Error('not used'); }
  async tearDown(podUid: string, dirName: string) {
    this.calls.push(['tearDown', podUid, dirName]);
    if (this.tearDownFails) throw new Error('NodeUnpublishVolume failed');
  }
  async tearDownDevice(driverName: string, volumeHandle: string) {
    this.calls.push(['tearDownDevice', driverName, volumeHandle]);
  }
  async volumeStats() { return undefined; }
}

const noContent: VolumeContentWriter = {
  fetch: async () => { throw new Error('no API content here'); },
  write: async () => { throw new Error('no API content here'); },
};

let rootDir: string | undefined;
let hostDir: string | undefined;
let api: FakeClaimApi;
let csi: FakeCsi;
let plugins: VolumePlugins;

const claimVolume: Volume = { name: 'data', persistentVolumeClaim: { claimName: 'data' } };
function podWith(volumes: Volume[], extra: Partial<Pod['spec']> = {}): Pod {
  return { metadata: { name: 'web-0', namespace: 'apps', uid: 'uid-1' }, spec: { containers: [{ name: 'c', image: 'busybox' }], volumes, ...extra } };
}
function bind(claimName: string, pvName: string, pvSpec: Record<string, unknown>, claimExtra: Record<string, unknown> = {}): void {
  api.claims.set(`apps/${claimName}`, { metadata: { name: claimName, namespace: 'apps', uid: `uid-${claimName}`, ...claimExtra }, spec: { volumeName: pvName }, status: { phase: 'Bound' } });
  api.volumes.set(pvName, { metadata: { name: pvName }, spec: { claimRef: { uid: `uid-${claimName}` }, ...pvSpec } });
}
const localDir = (pv: string) => join(rootDir!, 'pods/uid-1/volumes/kubernetes.io~local-volume', pv);

beforeEach(async () => {
  rootDir = await tempRoot('klt-claims-');
  hostDir = await tempRoot('klt-claims-host-');
  api = new FakeClaimApi();
  csi = new FakeCsi();
  plugins = createVolumePlugins({ rootDir: rootDir, mounter: systemMounter(), content: noContent, claims: api, nodeName: 'node-a', csi });
});
afterEach(async () => {
  await unmountAndRemove(rootDir);
  await unmountAndRemove(hostDir);
});

describe('a claim the populator cannot process', () => {
  const processing = (message: string) => expect.objectContaining({ code: 'KLT_ERR_VOLUME_PROCESS', message });

  it('is refused with Go\'s texts: missing, not bound, its PV missing or another claim\'s', async () => {
    await expect(plugins.setUp(podWith([claimVolume]), 'data', { remount: false }))
      .rejects.toEqual(processing('error processing PVC apps/data: failed to fetch PVC from API server: persistentvolumeclaims "data" not found'));
    api.claims.set('apps/data', { metadata: { name: 'data', namespace: 'apps', uid: 'c1' }, spec: {}, status: { phase: 'Pending' } });
    await expect(plugins.setUp(podWith([claimVolume]), 'data', { remount: false })).rejects.toEqual(processing('error processing PVC apps/data: PVC is not bound'));
    api.claims.set('apps/data', { metadata: { name: 'data', namespace: 'apps', uid: 'c1' }, spec: { volumeName: 'pv-1' }, status: { phase: 'Bound' } });
    await expect(plugins.setUp(podWith([claimVolume]), 'data', { remount: false }))
      .rejects.toEqual(processing('error processing PVC apps/data: failed to fetch PV pv-1 from API server: persistentvolumes "pv-1" not found'));
    api.volumes.set('pv-1', { metadata: { name: 'pv-1' }, spec: { claimRef: { uid: 'someone-else' }, local: { path: '/' } } });
    await expect(plugins.setUp(podWith([claimVolume]), 'data', { remount: false }))
      .rejects.toEqual(processing('error processing PVC apps/data: found PV object pv-1 but its pv.Spec.ClaimRef.UID someone-else does not point to claim.UID c1'));
  });

  it('refuses a generic ephemeral volume\'s claim the pod does not control', async () => {
    bind('web-0-scratch', 'pv-e', { hostPath: { path: hostDir } });
    await expect(plugins.setUp(podWith([{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } }]), 'scratch', { remount: false }))
      .rejects.toEqual(processing('PVC apps/web-0-scratch was not created for pod apps/web-0 (pod is not owner)'));
    expect(api.reads).toEqual(['pvc apps/web-0-scratch']);
  });

  it('refuses standalone, naming why', async () => {
    const standalone = createVolumePlugins({ rootDir: rootDir!, mounter: systemMounter(), content: noContent });
    await expect(standalone.setUp(podWith([claimVolume]), 'data', { remount: false }))
      .rejects.toEqual(processing('error processing PVC apps/data: the volume needs an API server, and the kubelet is in standalone mode'));
  });
});

describe('a local PV', () => {
  it('whose node affinity excludes the node is refused with Go\'s whole event text, naming the PV', async () => {
    bind('data', 'pv-local', { local: { path: hostDir }, nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-b'] }] }] } } });
    await expect(plugins.setUp(podWith([claimVolume]), 'data', { remount: false })).rejects.toEqual(expect.objectContaining({
      code: 'KLT_ERR_VOLUME_OPERATION', message: 'MountVolume.NodeAffinity check failed for volume "pv-local" : no matching NodeSelectorTerms',
    }));
  });

  // Such a PV was bind mounted from wherever its path resolved.
  it('whose path has a `..` element is refused before anything is looked at or mounted, naming the PV and the path', async () => {
    await mkdir(join(hostDir!, 'sub'));
    const path = `${hostDir!}/sub/../..`;
    bind('data', 'pv-local', { local: { path } });
    await expect(plugins.setUp(podWith([claimVolume]), 'data', { remount: false })).rejects.toEqual(expect.objectContaining({
      code: 'KLT_ERR_VOLUME_OPERATION', message: `MountVolume.SetUp failed for volume "pv-local" : invalid path: ${path} must not contain '..'`,
    }));
    await expect(stat(localDir('pv-local'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await mountPointsUnder(rootDir!)).toEqual([]);
  });

  it('whose path is missing is refused as NewMounter refuses it', async () => {
    bind('data', 'pv-local', { local: { path: join(hostDir!, 'gone') } });
    await expect(plugins.setUp(podWith([claimVolume]), 'data', { remount: false })).rejects.toEqual(expect.objectContaining({
      code: 'KLT_ERR_VOLUME_OPERATION', message: `MountVolume.NewMounter initialization failed for volume "pv-local" : path "${join(hostDir!, 'gone')}" does not exist`,
    }));
  });

  it.skipIf(notRoot)(`is bind mounted at kubernetes.io~local-volume/<pv>, answers the PV, and is torn down by it (${needsRoot})`, async () => {
    await writeFile(join(hostDir!, 'kept'), 'data');
    bind('data', 'pv-local', { local: { path: hostDir }, nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-a'] }] }] } } });
    const pod = podWith([claimVolume]);
    const answer = await plugins.setUp(pod, 'data', { remount: false });
    expect(answer).toEqual({ hostPath: localDir('pv-local'), changed: false, persistent: { claimName: 'data', pvName: 'pv-local', plugin: 'kubernetes.io/local-volume' } });
    expect(await mountPointsUnder(rootDir!)).toEqual([localDir('pv-local')]);
    expect(await readFile(join(localDir('pv-local'), 'kept'), 'utf8')).toBe('data');
    expect(plugins.mountedVolume('uid-1', 'data')).toEqual({ hostPath: localDir('pv-local'), readOnly: false });
    // Set up again (a remount, a restart): the bind is found, not stacked.
    await plugins.setUp(pod, 'data', { remount: true });
    expect(await mountPointsUnder(rootDir!)).toEqual([localDir('pv-local')]);
    await plugins.tearDown('uid-1', 'data', null, answer.persistent);
    expect(await mountPointsUnder(rootDir!)).toEqual([]);
    expect(await readFile(join(hostDir!, 'kept'), 'utf8')).toBe('data');
    expect(plugins.mountedVolume('uid-1', 'data')).toBeUndefined();
  });

  it.skipIf(notRoot)(`of a read-only claim is remounted ro, with the PV's mountOptions (${needsRoot})`, async () => {
    bind('data', 'pv-local', { local: { path: hostDir }, mountOptions: ['noexec'] });
    await plugins.setUp(podWith([{ name: 'data', persistentVolumeClaim: { claimName: 'data', readOnly: true } }]), 'data', { remount: false });
    const line = (await mountInfoLine(localDir('pv-local'))) ?? '';
    expect(line.split(' ')[5]).toMatch(/(^|,)ro(,|$)/);
    expect(line.split(' ')[5]).toMatch(/noexec/);
    expect(plugins.mountedVolume('uid-1', 'data')?.readOnly).toBe(true);
  });

  it.skipIf(notRoot)(`gets the pod's fsGroup; OnRootMismatch leaves a root that has it alone (${needsRoot})`, async () => {
    await mkdir(join(hostDir!, 'sub'));
    await writeFile(join(hostDir!, 'sub/file'), 'x', { mode: 0o600 });
    bind('data', 'pv-local', { local: { path: hostDir } });
    await plugins.setUp(podWith([claimVolume], { securityContext: { fsGroup: 4242 } }), 'data', { remount: false });
    expect((await stat(join(hostDir!, 'sub/file'))).gid).toBe(4242);
    expect((await stat(join(hostDir!, 'sub/file'))).mode & 0o777).toBe(0o660);
    await plugins.tearDown('uid-1', 'data', null, { claimName: 'data', pvName: 'pv-local', plugin: 'kubernetes.io/local-volume' });
    await writeFile(join(hostDir!, 'sub/late'), 'y', { mode: 0o600 });
    await plugins.setUp(podWith([claimVolume], { securityContext: { fsGroup: 4242, fsGroupChangePolicy: 'OnRootMismatch' } }), 'data', { remount: false });
    expect((await stat(join(hostDir!, 'sub/late'))).mode & 0o777).toBe(0o600);
  });

  it.skipIf(notRoot)(`left mounted in an orphaned pod directory is unmounted, never deleted through (${needsRoot})`, async () => {
    await writeFile(join(hostDir!, 'kept'), 'data');
    bind('data', 'pv-local', { local: { path: hostDir } });
    await plugins.setUp(podWith([claimVolume]), 'data', { remount: false });
    // A new process (a kubelet restart) knows nothing of it, and the pod is gone.
    const after = createVolumePlugins({ rootDir: rootDir!, mounter: systemMounter(), content: noContent, claims: api, nodeName: 'node-a' });
    expect(await after.cleanupOrphanedPodDirectories([])).toEqual({ removed: ['uid-1'], kept: [] });
    expect(await mountPointsUnder(rootDir!)).toEqual([]);
    expect(await readFile(join(hostDir!, 'kept'), 'utf8')).toBe('data');
  });
});

describe('a local PV of volumeMode Block', () => {
  const devicePod = (readOnly = false) => podWith([{ name: 'data', persistentVolumeClaim: { claimName: 'data', readOnly } }], {
    containers: [{ name: 'c', image: 'busybox', volumeDevices: [{ name: 'data', devicePath: '/dev/xvda' }] }],
  });
  const link = (pv: string) => join(rootDir!, 'pods/uid-1/volumeDevices/kubernetes.io~local-volume', pv);
  /** A block device node of its own (loop 7:250, never attached: only its type is looked at). */
  const blockNode = () => {
    const path = join(hostDir!, 'disk');
    execFileSync('mknod', [path, 'b', '7', '250']);
    return path;
  };

  it('in a container\'s volumeMounts is refused with Go\'s text, and a Filesystem one in volumeDevices too', async () => {
    bind('data', 'pv-block', { local: { path: hostDir }, volumeMode: 'Block' });
    const mounting = podWith([claimVolume], { containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] }] });
    await expect(plugins.setUp(mounting, 'data', { remount: false })).rejects.toEqual(expect.objectContaining({
      code: 'KLT_ERR_VOLUME_PROCESS', message: 'volume data has volumeMode Block, but is specified in volumeMounts',
    }));
    bind('data', 'pv-fs', { local: { path: hostDir }, volumeMode: 'Filesystem' });
    await expect(plugins.setUp(devicePod(), 'data', { remount: false })).rejects.toEqual(expect.objectContaining({
      code: 'KLT_ERR_VOLUME_PROCESS', message: 'volume data has volumeMode Filesystem, but is specified in volumeDevices',
    }));
  });

  it('whose path is a directory, not a block device, is refused naming the PV', async () => {
    bind('data', 'pv-block', { local: { path: hostDir }, volumeMode: 'Block' });
    await expect(plugins.setUp(devicePod(), 'data', { remount: false })).rejects.toEqual(expect.objectContaining({
      code: 'KLT_ERR_VOLUME_OPERATION',
      message: `MapVolume.MapPodDevice failed for volume "pv-block" : path "${hostDir!}" is not a block device: kubelet-ts maps block devices only`,
    }));
    expect(plugins.mountedVolume('uid-1', 'data')).toBeUndefined();
  });

  it('of another plugin than local is refused by the populator', async () => {
    bind('data', 'pv-host', { hostPath: { path: hostDir }, volumeMode: 'Block' });
    await expect(plugins.setUp(devicePod(), 'data', { remount: false })).rejects.toEqual(expect.objectContaining({
      code: 'KLT_ERR_VOLUME_PROCESS',
      message: 'failed to get Plugin from volumeSpec for volume "pv-host" err=no volume plugin matched: kubelet-ts maps raw block volumes of local PVs only',
    }));
  });

  it.skipIf(notRoot)(`is a symlink to its device at volumeDevices/kubernetes.io~local-volume/<pv>, answers the PV, and is unlinked by it (${needsRoot})`, async () => {
    const device = blockNode();
    bind('data', 'pv-block', { local: { path: device }, volumeMode: 'Block' });
    const answer = await plugins.setUp(devicePod(), 'data', { remount: false });
    expect(answer).toEqual({ hostPath: link('pv-block'), changed: false, persistent: { claimName: 'data', pvName: 'pv-block', plugin: 'kubernetes.io/local-volume', block: true } });
    expect(await readlink(link('pv-block'))).toBe(device);
    expect(await mountPointsUnder(rootDir!)).toEqual([]);
    expect(plugins.mountedVolume('uid-1', 'data')).toEqual({ hostPath: link('pv-block'), readOnly: false });
    // Set up again: the link is kept; one pointing elsewhere would be replaced.
    await plugins.setUp(devicePod(), 'data', { remount: true });
    expect(await readlink(link('pv-block'))).toBe(device);
    await plugins.tearDown('uid-1', 'data', null, answer.persistent);
    await expect(lstat(link('pv-block'))).rejects.toThrow(/ENOENT/);
    expect((await stat(device)).isBlockDevice()).toBe(true);
    // Gone already is torn down.
    await plugins.tearDown('uid-1', 'data', null, answer.persistent);
  });

  it.skipIf(notRoot)(`of a read-only claim is mapped read-only; an orphaned pod directory's link is removed, not its device (${needsRoot})`, async () => {
    const device = blockNode();
    bind('data', 'pv-block', { local: { path: device }, volumeMode: 'Block' });
    await plugins.setUp(devicePod(true), 'data', { remount: false });
    expect(plugins.mountedVolume('uid-1', 'data')).toEqual({ hostPath: link('pv-block'), readOnly: true });
    const after = createVolumePlugins({ rootDir: rootDir!, mounter: systemMounter(), content: noContent, claims: api, nodeName: 'node-a' });
    expect(await after.cleanupOrphanedPodDirectories([])).toEqual({ removed: ['uid-1'], kept: [] });
    await expect(lstat(join(rootDir!, 'pods/uid-1'))).rejects.toThrow(/ENOENT/);
    expect((await stat(device)).isBlockDevice()).toBe(true);
  });
});

describe('a hostPath PV', () => {
  it('is its path, checked as a hostPath volume, and answers the PV', async () => {
    bind('data', 'pv-host', { hostPath: { path: join(hostDir!, 'made'), type: 'DirectoryOrCreate' } });
    const answer = await plugins.setUp(podWith([claimVolume]), 'data', { remount: false });
    expect(answer).toEqual({ hostPath: join(hostDir!, 'made'), changed: false, persistent: { claimName: 'data', pvName: 'pv-host', plugin: 'kubernetes.io/host-path' } });
    expect((await stat(join(hostDir!, 'made'))).isDirectory()).toBe(true);
    bind('data', 'pv-file', { hostPath: { path: hostDir, type: 'File' } });
    await expect(plugins.setUp(podWith([claimVolume]), 'data', { remount: false })).rejects.toEqual(expect.objectContaining({
      code: 'KLT_ERR_VOLUME_OPERATION', message: `MountVolume.SetUp failed for volume "pv-file" : hostPath type check failed: ${hostDir} is not a file`,
    }));
  });
});

describe('a hostPath PV whose path has a `..` element', () => {
  it('is refused before its directory is made, naming the PV and the path', async () => {
    const path = `${hostDir!}/made/../escaped`;
    bind('data', 'pv-host', { hostPath: { path, type: 'DirectoryOrCreate' } });
    await expect(plugins.setUp(podWith([claimVolume]), 'data', { remount: false })).rejects.toEqual(expect.objectContaining({
      code: 'KLT_ERR_VOLUME_OPERATION', message: `MountVolume.SetUp failed for volume "pv-host" : invalid HostPath \`${path}\`: must not contain '..'`,
    }));
    await expect(stat(join(hostDir!, 'made'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(join(hostDir!, 'escaped'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('a CSI PV', () => {
  it('goes to the CSI port with the PV, and is torn down there by PV name', async () => {
    bind('data', 'pv-csi', { csi: { driver: 'csi-mock.lab.k8s.io', volumeHandle: 'h1' }, mountOptions: ['noatime'], accessModes: ['ReadWriteOnce'] });
    const answer = await plugins.setUp(podWith([claimVolume]), 'data', { remount: false });
    expect(answer).toEqual({ hostPath: '/csi/pv-csi/mount', changed: false, persistent: { claimName: 'data', pvName: 'pv-csi', plugin: 'kubernetes.io/csi' } });
    expect(csi.calls).toEqual([['setUpPersistent', 'uid-1', 'data', {
      pvName: 'pv-csi', source: { driver: 'csi-mock.lab.k8s.io', volumeHandle: 'h1' }, readOnly: false, mountOptions: ['noatime'], accessModes: ['ReadWriteOnce'],
    }]]);
    await plugins.tearDown('uid-1', 'data', null, answer.persistent);
    expect(csi.calls.at(-1)).toEqual(['tearDown', 'uid-1', 'pv-csi']);
  });

  it('an attachable one is in volumesInUse while set up; hostPath and local ones never are', async () => {
    expect(await plugins.reconstructVolumes()).toEqual([]);
    csi.attachable = true;
    bind('data', 'pv-csi', { csi: { driver: 'csi-mock.lab.k8s.io', volumeHandle: 'h1' } });
    bind('other', 'pv-host', { hostPath: { path: hostDir } });
    const pod = podWith([claimVolume, { name: 'other', persistentVolumeClaim: { claimName: 'other' } }]);
    const answer = await plugins.setUp(pod, 'data', { remount: false });
    await plugins.setUp(pod, 'other', { remount: false });
    expect(plugins.volumesInUse()).toEqual(['kubernetes.io/csi/csi-mock.lab.k8s.io^h1']);
    // In use until its teardown succeeds (Go: until the actual state has it unmounted).
    csi.tearDownFails = true;
    await expect(plugins.tearDown('uid-1', 'data', null, answer.persistent)).rejects.toThrow('NodeUnpublishVolume failed');
    expect(plugins.volumesInUse()).toEqual(['kubernetes.io/csi/csi-mock.lab.k8s.io^h1']);
    csi.tearDownFails = false;
    await plugins.tearDown('uid-1', 'data', null, answer.persistent);
    expect(plugins.volumesInUse()).toEqual([]);
  });

  it('an attachable one is in volumesInUse before it is attached or mounted, as Go reports its desired state', async () => {
    await plugins.reconstructVolumes();
    csi.attachable = true;
    csi.notAttached = true;
    bind('data', 'pv-csi', { csi: { driver: 'csi-mock.lab.k8s.io', volumeHandle: 'h1' } });
    await expect(plugins.setUp(podWith([claimVolume]), 'data', { remount: false })).rejects.toThrow('Volume not attached according to node status');
    expect(plugins.volumesInUse()).toEqual(['kubernetes.io/csi/csi-mock.lab.k8s.io^h1']);
    expect(plugins.mountedVolume('uid-1', 'data')).toBeUndefined();
    // A pod deleted before its volume was ever set up has nothing to tear down, and the name goes.
    await plugins.tearDown('uid-1', 'data', null);
    expect(plugins.volumesInUse()).toEqual([]);
  });

  it('without a CSI plugin fails as Go does for a driver that is not registered', async () => {
    const noCsi = createVolumePlugins({ rootDir: rootDir!, mounter: systemMounter(), content: noContent, claims: api, nodeName: 'node-a' });
    bind('data', 'pv-csi', { csi: { driver: 'csi-mock.lab.k8s.io', volumeHandle: 'h1' } });
    await expect(noCsi.setUp(podWith([claimVolume]), 'data', { remount: false })).rejects.toEqual(expect.objectContaining({
      code: 'KLT_ERR_VOLUME_OPERATION',
      message: 'MountVolume.MountDevice failed for volume "pv-csi" : kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name csi-mock.lab.k8s.io not found in the list of registered CSI drivers',
    }));
  });
});
