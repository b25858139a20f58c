import { lstat, mkdir, readdir, readFile, readlink, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toApiError } from '../../../src/adapters/apiserver/api-errors.js';
import { createApiContentWriter, podContentCallSlots } from '../../../src/adapters/volumes/api-content.js';
import { defaultWriteConcurrency } from '../../../src/adapters/volumes/atomic-writer.js';
import { threadPoolCalls } from '../../../src/adapters/volumes/fs-calls.js';
import type { VolumeContentWriter } from '../../../src/adapters/volumes/volume-plugins.js';
import type { Pod, PodSpec } from '../../../src/domain/pod/types.js';
import type { Volume } from '../../../src/domain/volumes/sources.js';
import { FakeVolumeSources, keyed } from '../../fakes/fake-volume-sources.js';
import { countedCalls } from './counted-fs-calls.js';
import { needsRoot, notRoot, tempRoot, unmountAndRemove } from './mount-helpers.js';

function podWith(spec: Partial<PodSpec> = {}): Pod {
  return {
    metadata: { name: 'web', namespace: 'shop', uid: 'uid-1', labels: { app: 'web' } },
    spec: { containers: [{ name: 'app', image: 'busybox', resources: { limits: { memory: '64Mi' } } }], ...spec },
  };
}

/** A set-up's two steps: the content fetched, then written into `dir`. */
const writeVolume = async (pod: Pod, volume: Volume, into: string) => writer.write(pod, { dir: into, podDir: dirname(into) }, await writer.fetch(pod, volume), false);
const text = (dir: string, path: string) => readFile(join(dir, path), 'utf8');
const modeOf = async (p: string) => (await stat(p)).mode & 0o7777;

let root: string | undefined;
let dir: string;
let sources: FakeVolumeSources;
let now: number;
let writer: VolumeContentWriter;

beforeEach(async () => {
  root = await tempRoot('klt-api-content-');
  dir = root;
  sources = new FakeVolumeSources();
  now = 1_000;
  writer = createApiContentWriter({ sources, clock: { now: () => now }, nodeAllocatable: () => ({ memory: '8Gi' }) });
});
afterEach(async () => {
  await unmountAndRemove(root);
  root = undefined;
});

describe('createApiContentWriter', () => {
  it('writes a configMap volume through ..data, having registered the pod first', async () => {
    sources.configMaps.set('shop/settings', keyed({ mode: 'fast', 'app.yaml': 'a: 1' }));
    const volume: Volume = { name: 'config', configMap: { name: 'settings' } };
    expect(await writeVolume(podWith(), volume, dir)).toEqual({ changed: true });
    expect(sources.calls).toEqual(['registerPod uid-1', 'configMap shop/settings']);
    expect(sources.registered.map((p) => p.metadata.uid)).toEqual(['uid-1']);
    expect(await text(dir, 'mode')).toBe('fast');
    expect(await text(dir, 'app.yaml')).toBe('a: 1');
    expect(await readlink(join(dir, 'mode'))).toBe('..data/mode');
    expect((await lstat(join(dir, '..data'))).isSymbolicLink()).toBe(true);
    expect(await text(dir, '..data/mode')).toBe('fast');
    expect(await modeOf(join(dir, 'mode'))).toBe(0o644);
  });

  it('writes a secret volume\'s listed items with their modes', async () => {
    sources.secrets.set('shop/creds', keyed({ password: 's3cret', user: 'admin' }));
    const volume: Volume = { name: 'creds', secret: { secretName: 'creds', defaultMode: 0o400, items: [{ key: 'password', path: 'db/pass' }] } };
    expect(await writeVolume(podWith(), volume, dir)).toEqual({ changed: true });
    expect(sources.calls).toEqual(['registerPod uid-1', 'secret shop/creds']);
    expect(await text(dir, 'db/pass')).toBe('s3cret');
    expect(await modeOf(join(dir, 'db/pass'))).toBe(0o400);
    expect((await readdir(dir)).filter((n) => !n.startsWith('..'))).toEqual(['db']);
  });

  it('writes a downwardAPI volume from the pod, with node allocatable for an unset limit', async () => {
    const volume: Volume = {
      name: 'info',
      downwardAPI: {
        items: [
          { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
          { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
          { path: 'cpu-limit', resourceFieldRef: { containerName: 'app', resource: 'limits.cpu' } },
          { path: 'mem-limit', resourceFieldRef: { containerName: 'app', resource: 'limits.memory', divisor: '1Mi' } },
        ],
      },
    };
    writer = createApiContentWriter({ sources, clock: { now: () => now }, nodeAllocatable: () => ({ cpu: '4', memory: '8Gi' }) });
    expect(await writeVolume(podWith(), volume, dir)).toEqual({ changed: true });
    expect(await text(dir, 'name')).toBe('web');
    expect(await text(dir, 'labels')).toBe('app="web"');
    expect(await text(dir, 'cpu-limit')).toBe('4');
    expect(await text(dir, 'mem-limit')).toBe('64');
    expect(sources.calls).toEqual(['registerPod uid-1']);
  });

  it('writes a projected volume from a ConfigMap, a Secret, the downward API and a token', async () => {
    sources.configMaps.set('shop/settings', keyed({ mode: 'fast' }));
    sources.secrets.set('shop/creds', keyed({ password: 's3cret' }));
    const volume: Volume = {
      name: 'bundle',
      projected: {
        sources: [
          { configMap: { name: 'settings' } },
          { secret: { name: 'creds', items: [{ key: 'password', path: 'pass' }] } },
          { downwardAPI: { items: [{ path: 'uid', fieldRef: { fieldPath: 'metadata.uid' } }] } },
          { serviceAccountToken: { path: 'token' } },
        ],
      },
    };
    expect(await writeVolume(podWith(), volume, dir)).toEqual({ changed: true, refreshAfterMs: 9_000 });
    expect(sources.tokenRequests).toEqual([
      { namespace: 'shop', serviceAccountName: 'default', audience: '', expirationSeconds: 3600, pod: { namespace: 'shop', name: 'web', uid: 'uid-1' } },
    ]);
    expect(await text(dir, 'mode')).toBe('fast');
    expect(await text(dir, 'pass')).toBe('s3cret');
    expect(await text(dir, 'uid')).toBe('uid-1');
    expect(await text(dir, 'token')).toBe('token-for-default-api');
    expect(await modeOf(join(dir, 'token'))).toBe(0o644);
  });

  it('asks for the token with the pod\'s service account, the audience and expiry, and answers the earliest refresh', async () => {
    const refreshAt: Record<string, number> = { vault: 61_000, api: 31_000 };
    sources.token = (spec) => ({ token: `t-${spec.audience || 'api'}`, expirationTimestampMs: 100_000, refreshAtMs: refreshAt[spec.audience || 'api'] ?? 0 });
    const volume: Volume = {
      name: 'tokens',
      projected: { sources: [{ serviceAccountToken: { path: 'vault-token', audience: 'vault', expirationSeconds: 7200 } }, { serviceAccountToken: { path: 'token' } }] },
    };
    expect(await writeVolume(podWith({ serviceAccountName: 'robot' }), volume, dir)).toEqual({ changed: true, refreshAfterMs: 30_000 });
    expect(sources.tokenRequests.map((r) => [r.serviceAccountName, r.audience, r.expirationSeconds])).toEqual([['robot', 'vault', 7200], ['robot', '', 3600]]);
    expect(await text(dir, 'vault-token')).toBe('t-vault');
    expect(await text(dir, 'token')).toBe('t-api');
  });

  it('answers refreshAfterMs 0 for a token whose refresh time has passed', async () => {
    now = 50_000;
    const volume: Volume = { name: 'tokens', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } };
    expect(await writeVolume(podWith(), volume, dir)).toEqual({ changed: true, refreshAfterMs: 0 });
  });

  it.skipIf(notRoot)(`writes the token 0600 for a pod with fsGroup, widened to 0640 for the group by the ownership pass (${needsRoot})`, async () => {
    const volume: Volume = { name: 'tokens', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } };
    await writeVolume(podWith({ securityContext: { fsGroup: 2000 } }), volume, dir);
    const token = await stat(join(dir, 'token'));
    expect(token.mode & 0o7777).toBe(0o640);
    expect(token.gid).toBe(2000);
  });

  it.skipIf(notRoot)(`writes the token 0600, owned by the pod's one user, for a pod with runAsUser (${needsRoot})`, async () => {
    const volume: Volume = { name: 'tokens', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } };
    await writeVolume(podWith({ securityContext: { runAsUser: 1234 } }), volume, dir);
    const token = await stat(join(dir, 'token'));
    expect(token.mode & 0o7777).toBe(0o600);
    expect(token.uid).toBe(1234);
  });

  it('answers changed:false for the same content, and changed:true with the new file after a ConfigMap change', async () => {
    sources.configMaps.set('shop/settings', keyed({ mode: 'fast' }));
    const volume: Volume = { name: 'config', configMap: { name: 'settings' } };
    await writeVolume(podWith(), volume, dir);
    const first = await readlink(join(dir, '..data'));
    expect(await writeVolume(podWith(), volume, dir)).toEqual({ changed: false });
    expect(await readlink(join(dir, '..data'))).toBe(first);
    sources.configMaps.set('shop/settings', keyed({ mode: 'slow' }));
    expect(await writeVolume(podWith(), volume, dir)).toEqual({ changed: true });
    expect(await text(dir, 'mode')).toBe('slow');
    expect(await readlink(join(dir, '..data'))).not.toBe(first);
  });

  it.each([
    [{ name: 'config', configMap: { name: 'x' } }, 'configmap "x" not found'],
    [{ name: 'creds', secret: { secretName: 'x' } }, 'secret "x" not found'],
    [{ name: 'bundle', projected: { sources: [{ configMap: { name: 'x' } }] } }, 'configmap "x" not found'],
  ] as [Volume, string][])('rejects a missing non-optional object (%#) and writes nothing', async (volume, message) => {
    const failure = writeVolume(podWith(), volume, dir);
    await expect(failure).rejects.toMatchObject({ code: 'KLT_ERR_API_NOT_FOUND' });
    await expect(failure).rejects.toThrow(message);
    expect(await readdir(dir)).toEqual([]);
  });

  it('writes every pod\'s content on disk within the node\'s call slots, however many volumes write at once', async () => {
    const { calls: counted, counts: stats } = countedCalls(threadPoolCalls);
    writer = createApiContentWriter({ sources, clock: { now: () => now }, diskCalls: counted });
    sources.configMaps.set('shop/wide', keyed(Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`k${i}`, String(i)]))));
    const volume: Volume = { name: 'wide', configMap: { name: 'wide' } };
    const dirs = await Promise.all(Array.from({ length: 6 }, (_, i) => mkdir(join(dir, `v${i}`)).then(() => join(dir, `v${i}`))));
    const pods = dirs.map((_, i) => ({ ...podWith(), metadata: { ...podWith().metadata, uid: `uid-${i}` } }));
    const contents = await Promise.all(pods.map((pod) => writer.fetch(pod, volume)));
    const results = await Promise.all(dirs.map((d, i) => writer.write(pods[i]!, { dir: d, podDir: dir }, contents[i]!, false)));
    expect(results.every((r) => r.changed)).toBe(true);
    expect(stats.max).toBeLessThanOrEqual(podContentCallSlots);
    // More than one write's own bound: the writes share the slots, they do not take turns.
    expect(stats.max).toBeGreaterThan(defaultWriteConcurrency);
    for (const d of dirs) expect(await text(d, 'k999')).toBe('999');
  });

  it('reads the objects a projected volume names a few at a time, however many it names', async () => {
    const reads = { now: 0, max: 0 };
    const read = sources.configMap.bind(sources);
    sources.configMap = async (namespace, name) => {
      reads.max = Math.max(reads.max, ++reads.now);
      // Each read stays in flight for a turn of the event loop, so reads that could overlap do.
      await new Promise((resolve) => setImmediate(resolve));
      reads.now--;
      return read(namespace, name);
    };
    const names = Array.from({ length: 50 }, (_, i) => `cm${i}`);
    for (const name of names) sources.configMaps.set(`shop/${name}`, keyed({ [`${name}.txt`]: name }));
    const volume: Volume = { name: 'many', projected: { sources: names.map((name) => ({ configMap: { name } })) } };
    expect(await writeVolume(podWith(), volume, dir)).toEqual({ changed: true });
    expect(await text(dir, 'cm49.txt')).toBe('cm49');
    expect(reads.max).toBeLessThanOrEqual(8);
  });

  it('writes an empty volume for a missing optional ConfigMap', async () => {
    const volume: Volume = { name: 'config', configMap: { name: 'x', optional: true } };
    expect(await writeVolume(podWith(), volume, dir)).toEqual({ changed: true });
    expect(await readdir(dir)).toContain('..data');
    expect((await readdir(dir)).filter((n) => !n.startsWith('..'))).toEqual([]);
  });

  it('writes nothing, and owns nothing, outside the pod directory', async () => {
    const pod = podWith({ securityContext: { fsGroup: 4242 } });
    sources.configMaps.set('shop/cm', keyed({ k: 'v' }));
    const volume: Volume = { name: 'cfg', configMap: { name: 'cm' } };
    const content = await writer.fetch(pod, volume);
    const outside = { dir: root!, podDir: join(root!, 'pods/uid-1') };
    await expect(writer.write(pod, outside, content, false)).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE' });
    expect(await readdir(root!)).toEqual([]);
  });

  it('words a token the API server refused as Go does, with the server\'s own text, keeping the code', async () => {
    sources.failNext = toApiError({ code: 404, body: { kind: 'Status', reason: 'NotFound', message: 'pod "web" not found' } }, 'create token');
    const volume: Volume = { name: 'kube-api-access', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } };
    await expect(writeVolume(podWith(), volume, dir)).rejects.toMatchObject({ code: 'KLT_ERR_API_NOT_FOUND', message: 'failed to fetch token: pod "web" not found' });
  });

  it('rejects with the manager\'s error when a read fails', async () => {
    sources.failNext = new Error('the API server is unreachable');
    const volume: Volume = { name: 'config', configMap: { name: 'settings' } };
    await expect(writeVolume(podWith(), volume, dir)).rejects.toThrow('the API server is unreachable');
  });
});
