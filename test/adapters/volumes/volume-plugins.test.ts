import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiContentWriter } from '../../../src/adapters/volumes/api-content.js';
import { systemMounter } from '../../../src/adapters/volumes/mount-table.js';
import { createVolumePlugins, type VolumeContent, type VolumeContentWriter } from '../../../src/adapters/volumes/volume-plugins.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import type { Volume } from '../../../src/domain/volumes/sources.js';
import type { VolumePlugins } from '../../../src/ports/volumes.js';
import { FakeVolumeSources } from '../../fakes/fake-volume-sources.js';
import { threadPoolRequestsDuring } from '../../support/thread-pool-requests.js';
import { mountInfoLine, mountPointsUnder, needsRoot, notRoot, tempRoot, unmountAndRemove } from './mount-helpers.js';

/** Records each write and leaves a file in the directory, as the API content writer would. */
class FakeContentWriter implements VolumeContentWriter {
  readonly writes: { podUid: string; volume: string; dir: string }[] = [];
  answer: { changed: boolean; refreshAfterMs?: number } = { changed: true };
  /** The next fetch fails with this (a missing object, an unreachable API server). */
  failNext?: Error;

  async fetch(_pod: Pod, volume: Volume) {
    const failure = this.failNext;
    this.failNext = undefined;
    if (failure) throw failure;
    return { payload: new Map([['content', { path: 'content', content: Buffer.from(volume.name), mode: 0o644 }]]) };
  }

  async write(pod: Pod, { dir }: { dir: string }, content: VolumeContent) {
    const file = content.payload.get('content')!;
    this.writes.push({ podUid: pod.metadata.uid, volume: file.content.toString(), dir });
    await writeFile(join(dir, 'content'), file.content);
    return this.answer;
  }
}

const exists = (p: string) => stat(p).then(() => true, () => false);
const modeOf = async (p: string) => (await stat(p)).mode & 0o7777;

let root: string | undefined;
let host: string | undefined;
let rootDir: string;
let hostDir: string;
let writer: FakeContentWriter;
let gone: string[];
let plugins: VolumePlugins;

function podWith(volumes: Volume[], uid = 'uid-1'): Pod {
  return { metadata: { name: 'web', namespace: 'shop', uid }, spec: { containers: [{ name: 'c', image: 'busybox' }], volumes } };
}

const podDir = () => join(rootDir, 'pods/uid-1');
const volumeDir = (plugin: string, name: string) => join(podDir(), 'volumes', plugin, name);

const pod = () => podWith([
  { name: 'scratch', emptyDir: {} },
  { name: 'memory', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } },
  { name: 'host', hostPath: { path: join(hostDir, 'data'), type: 'DirectoryOrCreate' } },
  { name: 'host-file', hostPath: { path: join(hostDir, 'missing-file'), type: 'File' } },
  { name: 'config', configMap: { name: 'settings' } },
  { name: 'creds', secret: { secretName: 'creds' } },
  { name: 'info', downwardAPI: { items: [] } },
  { name: 'bundle', projected: { sources: [] } },
  { name: 'share', nfs: { server: 'nfs.example', path: '/export' } },
]);

beforeEach(async () => {
  root = await tempRoot('klt-volume-plugins-');
  host = await tempRoot('klt-volume-plugins-host-');
  rootDir = root;
  hostDir = host;
  writer = new FakeContentWriter();
  gone = [];
  plugins = createVolumePlugins({ rootDir: `${rootDir}/`, mounter: systemMounter(), content: writer, onPodGone: (uid) => gone.push(uid) });
});
afterEach(async () => {
  await unmountAndRemove(root);
  await unmountAndRemove(host);
  root = undefined;
  host = undefined;
});

describe('createVolumePlugins with names that are paths', () => {
  it('an emptyDir named ../../../../victim-vol with an fsGroup changes, writes and removes nothing outside the pod', async () => {
    const victim = join(rootDir, 'victim-vol');
    await mkdir(victim, { mode: 0o700 });
    await chmod(victim, 0o700);
    await writeFile(join(victim, 'file'), 'x', { mode: 0o644 });
    const hostile: Pod = { ...podWith([]), spec: { containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: '../../../../victim-vol', emptyDir: {} }], securityContext: { fsGroup: 4242 } } };
    await expect(plugins.setUp(hostile, '../../../../victim-vol', { remount: false })).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE' });
    await expect(plugins.tearDown('uid-1', '../../../../victim-vol', 'kubernetes.io/empty-dir')).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE' });
    expect(await modeOf(victim)).toBe(0o700);
    expect(await modeOf(join(victim, 'file'))).toBe(0o644);
    expect(await readFile(join(victim, 'file'), 'utf8')).toBe('x');
  });

  it('a pod uid ../../victim-uid makes and removes nothing outside the root', async () => {
    const victim = join(rootDir, 'victim-uid');
    await mkdir(victim);
    await writeFile(join(victim, 'precious.txt'), 'keep');
    const hostile = podWith([{ name: 'scratch', emptyDir: {} }, { name: 'config', configMap: { name: 'settings' } }], '../../victim-uid');
    await expect(plugins.setUp(hostile, 'scratch', { remount: false })).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE' });
    await expect(plugins.setUp(hostile, 'config', { remount: false })).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE' });
    expect((await plugins.removePodDirectory('../../victim-uid')).removed).toEqual([]);
    expect(await readdir(victim)).toEqual(['precious.txt']);
    expect(writer.writes).toEqual([]);
  });
});

describe('createVolumePlugins setUp', () => {
  it('makes an emptyDir at <root>/pods/<uid>/volumes/kubernetes.io~empty-dir/<name>, 0777, without the content writer', async () => {
    const result = await plugins.setUp(pod(), 'scratch', { remount: false });
    const dir = volumeDir('kubernetes.io~empty-dir', 'scratch');
    expect(result).toEqual({ hostPath: dir, changed: false });
    expect(await modeOf(dir)).toBe(0o777);
    expect(writer.writes).toEqual([]);
  });

  it.skipIf(notRoot)(`mounts a tmpfs for an emptyDir of medium Memory (${needsRoot})`, async () => {
    const result = await plugins.setUp(pod(), 'memory', { remount: false });
    expect(await mountPointsUnder(rootDir)).toEqual([result.hostPath]);
    expect(await mountInfoLine(result.hostPath)).toMatch(/[ ,]size=1024k(,|$)/);
  });

  it('answers a hostPath volume with its own path, checked against its type', async () => {
    const result = await plugins.setUp(pod(), 'host', { remount: false });
    expect(result).toEqual({ hostPath: join(hostDir, 'data'), changed: false });
    expect((await stat(join(hostDir, 'data'))).isDirectory()).toBe(true);
    expect(writer.writes).toEqual([]);
    expect(await exists(podDir())).toBe(false);
  });

  it('fails a hostPath volume whose type check fails', async () => {
    await expect(plugins.setUp(pod(), 'host-file', { remount: false }))
      .rejects.toThrow(`hostPath type check failed: ${join(hostDir, 'missing-file')} is not a file`);
  });

  it.each([
    ['config', 'kubernetes.io~configmap'],
    ['info', 'kubernetes.io~downward-api'],
  ])('writes the %s volume into a plain 0777 directory on disk (%s)', async (name, plugin) => {
    writer.answer = { changed: true };
    const result = await plugins.setUp(pod(), name, { remount: false });
    const dir = volumeDir(plugin, name);
    expect(result).toEqual({ hostPath: dir, changed: true });
    expect(writer.writes).toEqual([{ podUid: 'uid-1', volume: name, dir }]);
    expect(await modeOf(dir)).toBe(0o777);
    expect(await readFile(join(dir, 'content'), 'utf8')).toBe(name);
    expect(await mountPointsUnder(rootDir)).toEqual([]);
  });

  it.skipIf(notRoot).each([
    ['creds', 'kubernetes.io~secret'],
    ['bundle', 'kubernetes.io~projected'],
  ])(`writes the %s volume onto a tmpfs (%s) (${needsRoot})`, async (name, plugin) => {
    writer.answer = { changed: true, refreshAfterMs: 4_000 };
    const result = await plugins.setUp(pod(), name, { remount: false });
    const dir = volumeDir(plugin, name);
    expect(result).toEqual({ hostPath: dir, changed: true, refreshAfterMs: 4_000 });
    expect(await mountInfoLine(dir)).toMatch(/ - tmpfs tmpfs /);
    expect(writer.writes).toEqual([{ podUid: 'uid-1', volume: name, dir }]);
    expect(await readFile(join(dir, 'content'), 'utf8')).toBe(name);
  });

  it.skipIf(notRoot)(`keeps one tmpfs and answers unchanged content on a remount (${needsRoot})`, async () => {
    await plugins.setUp(pod(), 'creds', { remount: false });
    writer.answer = { changed: false };
    expect(await plugins.setUp(pod(), 'creds', { remount: true })).toEqual({ hostPath: volumeDir('kubernetes.io~secret', 'creds'), changed: false });
    expect(await mountPointsUnder(rootDir)).toEqual([volumeDir('kubernetes.io~secret', 'creds')]);
    expect(writer.writes).toHaveLength(2);
  });

  it.skipIf(notRoot)(`remounts current projected content with no call through the thread pool, as a burst of pods remounts (${needsRoot})`, async () => {
    const content = createApiContentWriter({ sources: new FakeVolumeSources(), clock: { now: () => 1_000 } });
    const real = createVolumePlugins({ rootDir, mounter: systemMounter(), content });
    const projected = podWith([{ name: 'bundle', projected: { sources: [{ downwardAPI: { items: [{ path: 'name', fieldRef: { fieldPath: 'metadata.name' } }] } }] } }]);
    expect((await real.setUp(projected, 'bundle', { remount: false })).changed).toBe(true);
    expect(await threadPoolRequestsDuring(async () => expect(await real.setUp(projected, 'bundle', { remount: true })).toMatchObject({ changed: false }))).toBe(0);
    expect(await readFile(join(volumeDir('kubernetes.io~projected', 'bundle'), 'name'), 'utf8')).toBe('web');
  });

  it('fails when the content cannot be fetched, and writes nothing', async () => {
    writer.failNext = new Error('configmap "settings" not found');
    await expect(plugins.setUp(pod(), 'config', { remount: false })).rejects.toThrow('configmap "settings" not found');
    expect(writer.writes).toEqual([]);
  });

  it('refuses a volume the pod does not declare', async () => {
    const failure = plugins.setUp(pod(), 'nope', { remount: false });
    await expect(failure).rejects.toMatchObject({ code: 'KLT_ERR_VOLUME_MOUNT' });
    await expect(failure).rejects.toThrow('pod shop/web has no volume "nope"');
  });

  it('refuses a volume source without a plugin, naming it', async () => {
    const failure = plugins.setUp(pod(), 'share', { remount: false });
    await expect(failure).rejects.toMatchObject({ code: 'KLT_ERR_VOLUME_MOUNT' });
    await expect(failure).rejects.toThrow('no volume plugin matched volume "share" (source "nfs")');
  });
});

describe('createVolumePlugins tearDown', () => {
  it('removes an emptyDir directory and its content', async () => {
    const { hostPath } = await plugins.setUp(pod(), 'scratch', { remount: false });
    await writeFile(join(hostPath, 'f'), 'x');
    await plugins.tearDown('uid-1', 'scratch', 'kubernetes.io/empty-dir');
    expect(await exists(hostPath)).toBe(false);
  });

  it.skipIf(notRoot)(`unmounts a secret volume's tmpfs and removes its directory (${needsRoot})`, async () => {
    const { hostPath } = await plugins.setUp(pod(), 'creds', { remount: false });
    await plugins.tearDown('uid-1', 'creds', 'kubernetes.io/secret');
    expect(await mountPointsUnder(rootDir)).toEqual([]);
    expect(await exists(hostPath)).toBe(false);
  });

  it('leaves a hostPath volume\'s path on the node', async () => {
    await plugins.setUp(pod(), 'host', { remount: false });
    await writeFile(join(hostDir, 'data/precious'), 'host data');
    await plugins.tearDown('uid-1', 'host', 'kubernetes.io/host-path');
    expect(await readFile(join(hostDir, 'data/precious'), 'utf8')).toBe('host data');
  });
});

describe('createVolumePlugins pod directories', () => {
  it('tells onPodGone and removes the pod directory', async () => {
    await plugins.setUp(pod(), 'scratch', { remount: false });
    expect(await plugins.removePodDirectory('uid-1')).toEqual({ removed: ['uid-1'], kept: [] });
    expect(gone).toEqual(['uid-1']);
    expect(await exists(podDir())).toBe(false);
  });

  it.skipIf(notRoot)(`keeps a pod directory whose tmpfs volume is still mounted (${needsRoot})`, async () => {
    const { hostPath } = await plugins.setUp(pod(), 'creds', { remount: false });
    expect(await plugins.removePodDirectory('uid-1')).toEqual({ removed: [], kept: [{ podUid: 'uid-1', reason: `still mounted: ${hostPath}` }] });
    expect(await readFile(join(hostPath, 'content'), 'utf8')).toBe('creds');
  });

  it.skipIf(notRoot)(`cleans up orphaned pod directories under its root, unmounting their tmpfs volumes (${needsRoot})`, async () => {
    await plugins.setUp(pod(), 'creds', { remount: false });
    const kept = await plugins.setUp(podWith([{ name: 'keep', emptyDir: {} }], 'uid-2'), 'keep', { remount: false });
    expect(await plugins.cleanupOrphanedPodDirectories(['uid-2'])).toEqual({ removed: ['uid-1'], kept: [] });
    expect(await mountPointsUnder(rootDir)).toEqual([]);
    expect(await exists(podDir())).toBe(false);
    expect(await exists(kept.hostPath)).toBe(true);
  });
});

describe('createVolumePlugins with CSI volumes', () => {
  const inline = () => podWith([{ name: 'scratch', csi: { driver: 'drv.example.com' } }]);

  it('hands a pod\'s inline csi volume to the CSI plugin, for set-up and teardown', async () => {
    const calls: string[] = [];
    const csi = {
      setUpPersistent: async () => { throw new Error('not here'); },
      setUpInline: async (p: Pod, name: string) => { calls.push(`setUpInline ${p.metadata.uid} ${name}`); return { hostPath: '/published', changed: false }; },
      tearDown: async (uid: string, dir: string) => { calls.push(`tearDown ${uid} ${dir}`); },
      tearDownDevice: async () => { throw new Error('not here'); },
      volumeStats: async () => undefined,
    };
    const withCsi = createVolumePlugins({ rootDir, mounter: systemMounter(), content: writer, csi });
    expect(await withCsi.setUp(inline(), 'scratch', { remount: false })).toEqual({ hostPath: '/published', changed: false });
    await withCsi.tearDown('uid-1', 'scratch', 'kubernetes.io/csi');
    expect(calls).toEqual(['setUpInline uid-1 scratch', 'tearDown uid-1 scratch']);
  });

  it('without a CSI plugin, fails the volume with Go\'s unregistered-driver message', async () => {
    await expect(plugins.setUp(inline(), 'scratch', { remount: false }))
      .rejects.toThrow('kubernetes.io/csi: mounter.SetUpAt failed to get CSI client: driver name drv.example.com not found in the list of registered CSI drivers');
  });
});
