import { chmod, mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPodFiles } from '../../../src/adapters/fs/pod-files.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import { SeededRandom } from '../../fakes/seeded-random.js';
import { threadPoolRequestsDuring } from '../../support/thread-pool-requests.js';

const pod = (hostNetwork = false): Pod => ({ metadata: { name: 'web', namespace: 'shop', uid: 'uid-1' }, spec: { containers: [], hostNetwork } });

let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'klt-pod-files-')));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('createPodFiles', () => {
  it('ensureHostsFile makes the pod directory and writes <root>/pods/<uid>/etc-hosts', async () => {
    const files = createPodFiles(root, new SeededRandom(1));
    const path = await files.ensureHostsFile(pod(), ['10.1.0.5'], 'cluster.local');
    expect(path).toBe(join(root, 'pods/uid-1/etc-hosts'));
    const content = await readFile(path, 'utf8');
    expect(content.startsWith('# Kubernetes-managed hosts file.\n')).toBe(true);
    expect(content).toContain('10.1.0.5\tweb\n');
    expect((await stat(path)).mode & 0o777).toBe(0o644);
    expect((await stat(join(root, 'pods/uid-1'))).isDirectory()).toBe(true);
  });

  it('ensureHostsFile rewrites the file in an existing pod directory', async () => {
    const files = createPodFiles(`${root}/`, new SeededRandom(1));
    await files.ensureHostsFile(pod(), ['10.1.0.5'], 'cluster.local');
    const path = await files.ensureHostsFile(pod(), ['10.1.0.6'], 'cluster.local');
    expect(path).toBe(join(root, 'pods/uid-1/etc-hosts'));
    expect(await readFile(path, 'utf8')).toContain('10.1.0.6\tweb\n');
    expect(await readFile(path, 'utf8')).not.toContain('10.1.0.5');
  });

  it('ensureHostsFile copies the node hosts file it was given for a hostNetwork pod', async () => {
    await writeFile(join(root, 'node-hosts'), '127.0.0.1\tnode\n');
    const files = createPodFiles(root, new SeededRandom(1), join(root, 'node-hosts'));
    const path = await files.ensureHostsFile(pod(true), [], 'cluster.local');
    expect(await readFile(path, 'utf8')).toBe('# Kubernetes-managed hosts file (host network).\n127.0.0.1\tnode\n');
  });

  it('createTerminationMessageFile makes an empty 0666 file under <root>/pods/<uid>/containers/<name>/, named by the random draw', async () => {
    const random = new SeededRandom(7);
    const files = createPodFiles(root, random);
    const path = await files.createTerminationMessageFile('uid-1', 'app');
    const name = Math.floor((random.drawn[0] ?? -1) * 2 ** 32).toString(16).padStart(8, '0');
    expect(path).toBe(join(root, 'pods/uid-1/containers/app', name));
    expect(await readFile(path, 'utf8')).toBe('');
    expect((await stat(path)).mode & 0o777).toBe(0o666);
  });

  it('a container start in an existing pod directory goes through the thread pool only to open its files and make new directories', async () => {
    const files = createPodFiles(root, new SeededRandom(1));
    await mkdir(join(root, 'pods/uid-1'), { recursive: true });
    // The open of the hosts file; the branch start made 5 (mkdir -p, open, write, close, chmod).
    expect(await threadPoolRequestsDuring(() => files.ensureHostsFile(pod(), ['10.1.0.5'], 'cluster.local'))).toBe(1);
    // The mkdirs of containers/ and containers/app/, the open; the branch start made 8 (and 3 stats).
    expect(await threadPoolRequestsDuring(() => files.createTerminationMessageFile('uid-1', 'app'))).toBe(3);
    const second = await threadPoolRequestsDuring(() => files.createTerminationMessageFile('uid-1', 'app'));
    expect(second).toBe(1);
    const names = await readdir(join(root, 'pods/uid-1/containers/app'));
    expect(names).toHaveLength(2);
    for (const name of names) expect((await stat(join(root, 'pods/uid-1/containers/app', name))).mode & 0o777).toBe(0o666);
  });

  it('writes no hosts file through a symlink that leads out of the pod directory', async () => {
    await mkdir(join(root, 'pods/uid-1'), { recursive: true });
    await writeFile(join(root, 'victim'), 'keep', { mode: 0o600 });
    await chmod(join(root, 'victim'), 0o600);
    await symlink(join(root, 'victim'), join(root, 'pods/uid-1/etc-hosts'));
    const files = createPodFiles(root, new SeededRandom(1));
    await expect(files.ensureHostsFile(pod(), ['10.1.0.5'], 'cluster.local')).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE' });
    expect(await readFile(join(root, 'victim'), 'utf8')).toBe('keep');
    expect((await stat(join(root, 'victim'))).mode & 0o777).toBe(0o600);
  });

  it('makes no world-writable termination-message file through a symlink that leads out of the pod directory', async () => {
    await mkdir(join(root, 'pods/uid-1'), { recursive: true });
    await mkdir(join(root, 'decoy'));
    await symlink(join(root, 'decoy'), join(root, 'pods/uid-1/containers'));
    const files = createPodFiles(root, new SeededRandom(7));
    await expect(files.createTerminationMessageFile('uid-1', 'app')).rejects.toMatchObject({ code: 'KLT_ERR_HOST_IO', cause: expect.objectContaining({ code: 'KLT_ERR_PATH_UNSAFE' }) });
    expect(await readdir(join(root, 'decoy/app'))).toEqual([]);
  });

  it('refuses a uid or a container name that is a path, making nothing', async () => {
    const files = createPodFiles(root, new SeededRandom(7));
    await expect(files.ensureHostsFile({ ...pod(), metadata: { name: 'web', uid: '../../x' } }, ['10.1.0.5'], 'c')).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE' });
    await expect(files.createTerminationMessageFile('uid-1', '../../../x')).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE' });
    expect(await readdir(root)).toEqual([]);
  });

  it('resolveSubPath makes a missing subPath inside the volume and answers its node path', async () => {
    const volumePath = join(root, 'pods/uid-1/volumes/kubernetes.io~empty-dir/data');
    await mkdir(volumePath, { recursive: true });
    const files = createPodFiles(root, new SeededRandom(1));
    const path = await files.resolveSubPath({ volumePath, subPath: 'a/b', volumeMountName: 'data', containerName: 'app' });
    expect(path).toBe(join(volumePath, 'a/b'));
    expect((await stat(path)).isDirectory()).toBe(true);
  });
});
