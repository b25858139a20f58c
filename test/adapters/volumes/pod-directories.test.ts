import { lstat, mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemMounter, type Mounter } from '../../../src/adapters/volumes/mount-table.js';
import { cleanupOrphanedPodDirectories, removePodDirectory, tearDownDirectory } from '../../../src/adapters/volumes/pod-directories.js';
import { bindMount, mountPointsUnder, needsRoot, notRoot, tempRoot, tmpfsMount, unmountAndRemove } from './mount-helpers.js';

const mounter = systemMounter();
/** A mounter whose table names no mount at all (a mount made in another namespace, say). */
const blindMounter: Mounter = { mountPoints: async () => [], mountTmpfs: async () => undefined, unmount: async () => undefined };
const exists = (p: string) => stat(p).then(() => true, () => false);

let root: string | undefined;
let host: string | undefined;
let rootDir: string;
let hostDir: string;
const podDir = (uid: string) => join(rootDir, 'pods', uid);

/** A pod directory with a file in it and, optionally, an empty directory to mount on. */
async function makePodDir(uid: string, mountPoint?: string): Promise<string> {
  await mkdir(join(podDir(uid), 'containers/c'), { recursive: true });
  await writeFile(join(podDir(uid), 'etc-hosts'), 'hosts');
  if (mountPoint !== undefined) await mkdir(join(podDir(uid), mountPoint), { recursive: true });
  return podDir(uid);
}

beforeEach(async () => {
  root = await tempRoot('klt-pod-dirs-');
  host = await tempRoot('klt-pod-dirs-host-');
  rootDir = root;
  hostDir = host;
  await writeFile(join(hostDir, 'precious'), 'host data');
});
afterEach(async () => {
  // The pod root first: its bind mounts of the host directory go before the host directory does.
  await unmountAndRemove(root);
  await unmountAndRemove(host);
  root = undefined;
  host = undefined;
});

describe('tearDownDirectory', () => {
  it('removes a directory that is not a mount point, content included', async () => {
    const dir = join(rootDir, 'vol');
    await mkdir(join(dir, 'sub'), { recursive: true });
    await writeFile(join(dir, 'sub/f'), 'x');
    await tearDownDirectory(mounter, `${dir}/`);
    expect(await exists(dir)).toBe(false);
  });

  it('does nothing for a directory that does not exist', async () => {
    await expect(tearDownDirectory(mounter, join(rootDir, 'missing'))).resolves.toBeUndefined();
  });

  it.skipIf(notRoot)(`unmounts its own tmpfs, then removes the directory (${needsRoot})`, async () => {
    const dir = join(rootDir, 'vol');
    await mkdir(dir);
    await mounter.mountTmpfs(dir, {});
    await writeFile(join(dir, 'in-memory'), 'x');
    await tearDownDirectory(mounter, dir);
    expect(await mountPointsUnder(rootDir)).toEqual([]);
    expect(await exists(dir)).toBe(false);
  });

  it.skipIf(notRoot)(`refuses while something else is mounted below, names it, and deletes nothing (${needsRoot})`, async () => {
    const dir = join(rootDir, 'vol');
    await mkdir(join(dir, 'bound'), { recursive: true });
    await writeFile(join(dir, 'own'), 'x');
    await bindMount(hostDir, join(dir, 'bound'));
    const failure = tearDownDirectory(mounter, dir);
    await expect(failure).rejects.toMatchObject({ code: 'KLT_ERR_VOLUME_MOUNT' });
    await expect(failure).rejects.toThrow(`cannot remove ${dir}: still mounted: ${dir}/bound`);
    expect(await readFile(join(dir, 'own'), 'utf8')).toBe('x');
    expect(await readFile(join(dir, 'bound/precious'), 'utf8')).toBe('host data');
    expect(await readFile(join(hostDir, 'precious'), 'utf8')).toBe('host data');
  });

  it.skipIf(notRoot)(`refuses a tmpfs with a mount inside it and deletes nothing (${needsRoot})`, async () => {
    const dir = join(rootDir, 'vol');
    await mkdir(dir);
    await mounter.mountTmpfs(dir, {});
    await mkdir(join(dir, 'bound'));
    await bindMount(hostDir, join(dir, 'bound'));
    await expect(tearDownDirectory(mounter, dir)).rejects.toMatchObject({ code: 'KLT_ERR_VOLUME_MOUNT' });
    expect(await readFile(join(dir, 'bound/precious'), 'utf8')).toBe('host data');
    expect(await readFile(join(hostDir, 'precious'), 'utf8')).toBe('host data');
  });
});

describe('removePodDirectory', () => {
  it('removes a pod directory without mounts', async () => {
    await makePodDir('u1');
    expect(await removePodDirectory(mounter, rootDir, 'u1')).toEqual({ removed: ['u1'], kept: [] });
    expect(await exists(podDir('u1'))).toBe(false);
  });

  it('answers a missing pod directory as removed', async () => {
    expect(await removePodDirectory(mounter, rootDir, 'gone')).toEqual({ removed: ['gone'], kept: [] });
  });

  it.skipIf(notRoot)(`keeps everything when a host directory is bind-mounted below, and the host file survives (${needsRoot})`, async () => {
    const dir = await makePodDir('u1', 'volumes/x/y');
    const target = join(dir, 'volumes/x/y');
    await bindMount(hostDir, target);
    expect(await removePodDirectory(mounter, rootDir, 'u1')).toEqual({
      removed: [],
      kept: [{ podUid: 'u1', reason: `still mounted: ${target}` }],
    });
    expect(await readFile(join(dir, 'etc-hosts'), 'utf8')).toBe('hosts');
    expect(await readFile(join(target, 'precious'), 'utf8')).toBe('host data');
    expect(await mountPointsUnder(dir)).toEqual([target]);
    expect(await readFile(join(hostDir, 'precious'), 'utf8')).toBe('host data');
  });

  it.skipIf(notRoot)(`keeps a pod directory with a tmpfs still mounted below (it unmounts nothing itself) (${needsRoot})`, async () => {
    const dir = await makePodDir('u1', 'volumes/kubernetes.io~secret/s');
    await tmpfsMount(join(dir, 'volumes/kubernetes.io~secret/s'));
    const outcome = await removePodDirectory(mounter, rootDir, 'u1');
    expect(outcome.removed).toEqual([]);
    expect(outcome.kept).toEqual([{ podUid: 'u1', reason: `still mounted: ${dir}/volumes/kubernetes.io~secret/s` }]);
    expect(await exists(join(dir, 'etc-hosts'))).toBe(true);
  });
});

describe('removePodDirectory never leaves <root>/pods', () => {
  it('refuses a uid that is not one path segment and deletes nothing outside the root', async () => {
    await mkdir(join(rootDir, 'pods'), { recursive: true });
    const victim = join(rootDir, 'victim-uid');
    await mkdir(victim);
    await writeFile(join(victim, 'precious.txt'), 'keep');
    const outcome = await removePodDirectory(mounter, rootDir, '../victim-uid');
    expect(outcome.removed).toEqual([]);
    expect(outcome.kept).toEqual([{ podUid: '../victim-uid', reason: 'pod uid "../victim-uid" contains "/": it cannot name a directory under the kubelet\'s root' }]);
    expect(await readFile(join(victim, 'precious.txt'), 'utf8')).toBe('keep');
  });

  it('unlinks a symlink inside the pod directory and leaves the decoy it points to intact', async () => {
    const dir = await makePodDir('u1');
    await symlink(hostDir, join(dir, 'volumes-link'));
    await symlink(join(hostDir, 'precious'), join(dir, 'containers/c/file-link'));
    expect(await removePodDirectory(mounter, rootDir, 'u1')).toEqual({ removed: ['u1'], kept: [] });
    expect(await exists(dir)).toBe(false);
    expect(await readFile(join(hostDir, 'precious'), 'utf8')).toBe('host data');
  });

  it('unlinks a pod directory that is itself a symlink, and leaves its target intact', async () => {
    await mkdir(join(rootDir, 'pods'), { recursive: true });
    await symlink(hostDir, join(rootDir, 'pods', 'u1'));
    expect(await removePodDirectory(mounter, rootDir, 'u1')).toEqual({ removed: ['u1'], kept: [] });
    expect(await lstat(join(rootDir, 'pods', 'u1')).catch(() => undefined)).toBeUndefined();
    expect(await readFile(join(hostDir, 'precious'), 'utf8')).toBe('host data');
  });

  it.skipIf(notRoot)(`does not cross a mount the mount table does not name: the device differs (${needsRoot})`, async () => {
    const dir = await makePodDir('u1', 'volumes/x/mnt');
    await tmpfsMount(join(dir, 'volumes/x/mnt'));
    await writeFile(join(dir, 'volumes/x/mnt/data'), 'on the mount');
    const outcome = await removePodDirectory(blindMounter, rootDir, 'u1');
    expect(outcome.removed).toEqual([]);
    expect(outcome.kept).toEqual([{ podUid: 'u1', reason: `cannot delete directory ${dir}/volumes/x/mnt: it is a mount point` }]);
    expect(await readFile(join(dir, 'volumes/x/mnt/data'), 'utf8')).toBe('on the mount');
  });
});

describe('cleanupOrphanedPodDirectories', () => {
  it('unlinks a symlink listed under <root>/pods and leaves its target intact', async () => {
    await mkdir(join(rootDir, 'pods'), { recursive: true });
    await symlink(hostDir, join(rootDir, 'pods', 'evil'));
    expect(await cleanupOrphanedPodDirectories(mounter, rootDir, [])).toEqual({ removed: ['evil'], kept: [] });
    expect(await readFile(join(hostDir, 'precious'), 'utf8')).toBe('host data');
  });

  it('tears down the CSI volumes of an orphaned pod through the CSI plugin, then removes it; a failed teardown keeps it', async () => {
    await makePodDir('orphan', 'volumes/kubernetes.io~csi/pv-1/mount');
    await makePodDir('stuck', 'volumes/kubernetes.io~csi/inline/mount');
    const tornDown: string[] = [];
    const csi = {
      tearDown: async (uid: string, dir: string) => {
        if (uid === 'stuck') throw new Error('driver name d not found in the list of registered CSI drivers');
        tornDown.push(`${uid}/${dir}`);
      },
    };
    expect(await cleanupOrphanedPodDirectories(mounter, rootDir, [], csi)).toEqual({
      removed: ['orphan'],
      kept: [{ podUid: 'stuck', reason: 'driver name d not found in the list of registered CSI drivers' }],
    });
    expect(tornDown).toEqual(['orphan/pv-1']);
    expect(await exists(podDir('stuck'))).toBe(true);
  });

  it('tears down no CSI volume through a symlink listed under <root>/pods', async () => {
    await mkdir(join(hostDir, 'volumes/kubernetes.io~csi/victim'), { recursive: true });
    await mkdir(join(rootDir, 'pods'), { recursive: true });
    await symlink(hostDir, join(rootDir, 'pods', 'evil'));
    const tornDown: string[] = [];
    expect(await cleanupOrphanedPodDirectories(mounter, rootDir, [], { tearDown: async (uid, dir) => { tornDown.push(`${uid}/${dir}`); } })).toEqual({ removed: ['evil'], kept: [] });
    expect(tornDown).toEqual([]);
    expect(await exists(join(hostDir, 'volumes/kubernetes.io~csi/victim'))).toBe(true);
  });

  it('removes the pod directories not in keep and leaves the kept ones', async () => {
    await makePodDir('b');
    await makePodDir('a');
    await makePodDir('keep-me');
    expect(await cleanupOrphanedPodDirectories(mounter, rootDir, ['keep-me'])).toEqual({ removed: ['a', 'b'], kept: [] });
    expect(await readdir(join(rootDir, 'pods'))).toEqual(['keep-me']);
  });

  it('answers nothing when the pods directory does not exist', async () => {
    expect(await cleanupOrphanedPodDirectories(mounter, join(rootDir, 'no-such-root'), [])).toEqual({ removed: [], kept: [] });
  });

  it.skipIf(notRoot)(`unmounts the tmpfs volumes under <podDir>/volumes/ first, then removes the directory (${needsRoot})`, async () => {
    const dir = await makePodDir('u1', 'volumes/kubernetes.io~secret/s');
    await mkdir(join(dir, 'volumes/kubernetes.io~empty-dir/mem'), { recursive: true });
    await tmpfsMount(join(dir, 'volumes/kubernetes.io~secret/s'));
    await tmpfsMount(join(dir, 'volumes/kubernetes.io~empty-dir/mem'));
    await writeFile(join(dir, 'volumes/kubernetes.io~secret/s/token'), 'secret');
    expect(await cleanupOrphanedPodDirectories(mounter, rootDir, [])).toEqual({ removed: ['u1'], kept: [] });
    expect(await mountPointsUnder(rootDir)).toEqual([]);
    expect(await exists(dir)).toBe(false);
  });

  it.skipIf(notRoot)(`keeps a pod directory whose tmpfs volume cannot be unmounted for a mount inside it (${needsRoot})`, async () => {
    const volume = join(await makePodDir('u1', 'volumes/kubernetes.io~secret/s'), 'volumes/kubernetes.io~secret/s');
    await tmpfsMount(volume);
    await mkdir(join(volume, 'bound'));
    await bindMount(hostDir, join(volume, 'bound'));
    const outcome = await cleanupOrphanedPodDirectories(mounter, rootDir, []);
    expect(outcome.removed).toEqual([]);
    expect(outcome.kept).toEqual([{ podUid: 'u1', reason: expect.stringContaining(`unmount of ${volume} failed: `) }]);
    expect(await readFile(join(volume, 'bound/precious'), 'utf8')).toBe('host data');
    expect(await readFile(join(hostDir, 'precious'), 'utf8')).toBe('host data');
  });

  it.skipIf(notRoot)(`keeps a pod directory with a foreign bind mount outside its volumes, and the host file survives (${needsRoot})`, async () => {
    const dir = await makePodDir('u1', 'plugins/foreign');
    await bindMount(hostDir, join(dir, 'plugins/foreign'));
    await makePodDir('u2');
    const outcome = await cleanupOrphanedPodDirectories(mounter, rootDir, []);
    expect(outcome).toEqual({ removed: ['u2'], kept: [{ podUid: 'u1', reason: `still mounted: ${dir}/plugins/foreign` }] });
    expect(await readFile(join(dir, 'plugins/foreign/precious'), 'utf8')).toBe('host data');
    expect(await readFile(join(hostDir, 'precious'), 'utf8')).toBe('host data');
  });

  it.skipIf(notRoot)(`keeps a pod directory with a foreign bind mount inside its volumes, and leaves it mounted (${needsRoot})`, async () => {
    const dir = await makePodDir('u1', 'volumes/x/y');
    const target = join(dir, 'volumes/x/y');
    await bindMount(hostDir, target);
    const outcome = await cleanupOrphanedPodDirectories(mounter, rootDir, []);
    expect(outcome).toEqual({ removed: [], kept: [{ podUid: 'u1', reason: `still mounted: ${target}` }] });
    expect(await mountPointsUnder(dir)).toEqual([target]);
    expect(await readFile(join(dir, 'etc-hosts'), 'utf8')).toBe('hosts');
    expect(await readFile(join(hostDir, 'precious'), 'utf8')).toBe('host data');
  });
});
