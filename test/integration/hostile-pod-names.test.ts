/**
 * Pods whose uid or names are paths, or collide as actor ids, end to end: the real binary,
 * standalone, on the embedded runtime. Two volumes named `d` made the kubelet exit 70 (`Actor with
 * system ID 'volume:<uid>:d' already exists`) at every start; pod `u1` with volume `a:b` beside pod
 * `u1:a` with volume `b` did the same; an emptyDir named `../../../../../../victim-vol` with an
 * fsGroup chmodded and chowned a directory outside the root, and a uid `../../../victim-uid` wrote
 * there and deleted it. Here each is refused (by the kubelet's own check, or by manifest validation
 * when that refuses it first) or runs in its own directory, a good pod runs beside them, nothing
 * outside the root is touched, and the kubelet neither exits nor fails to start again.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStaticPodKubelet, until, type StaticPodKubelet } from '../support/daemon.js';
import { SLEEP_UNTIL_TERM } from '../support/sleeper.js';

const NODE = 'node-hostile';
const IMAGE = 'kubelet-ts.local/busybox:1.0';
const SLEEP = ['sh', '-c', SLEEP_UNTIL_TERM];

interface DebugPod { uid: string; name: string; lifecycle: string; status: { phase?: string; reason?: string; message?: string; containerStatuses?: { state?: { running?: object } }[] } | null }
interface DebugPods { pods: DebugPod[]; rejectedManifests: { origin: string; reason: string }[]; orphans: string[] }

/** A pod whose one container mounts each of `volumes` by name. */
function manifest(name: string, volumes: object[], extra: { uid?: string; fsGroup?: number } = {}): string {
  const mounts = [...new Set(volumes.map((v) => (v as { name: string }).name))].map((v, i) => ({ name: v, mountPath: `/mnt/v${i}` }));
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, ...(extra.uid !== undefined ? { uid: extra.uid } : {}) },
    spec: {
      terminationGracePeriodSeconds: 1,
      ...(extra.fsGroup !== undefined ? { securityContext: { fsGroup: extra.fsGroup } } : {}),
      volumes,
      containers: [{ name: 'main', image: IMAGE, command: SLEEP, volumeMounts: mounts }],
    },
  });
}

const HOSTILE = {
  'twice-d': manifest('twice-d', [{ name: 'd', emptyDir: {} }, { name: 'd', emptyDir: {} }]),
  'colon-u1': manifest('colon-u1', [{ name: 'a:b', emptyDir: {} }], { uid: 'u1' }),
  'colon-u1a': manifest('colon-u1a', [{ name: 'b', emptyDir: {} }], { uid: 'u1:a' }),
  'victim-vol': manifest('victim-vol', [{ name: '../../../../../../victim-vol', emptyDir: {} }], { fsGroup: 4242 }),
  'victim-uid': manifest('victim-uid', [], { uid: '../../victim-uid' }),
} as const;

describe('hostile pod uids and names on the embedded runtime', () => {
  let k: StaticPodKubelet;
  let restarted: StaticPodKubelet | undefined;
  const debugPods = async (kubelet: StaticPodKubelet) => (await (await fetch(`http://${kubelet.debug}/debug/pods`)).json()) as DebugPods;
  const byName = (view: DebugPods, name: string) => view.pods.find((p) => p.name === `${name}-${NODE}`);
  const manifestRefused = (view: DebugPods, name: string) => view.rejectedManifests.some((r) => r.origin.endsWith(`${name}.json`));
  const running = (pod: DebugPod | undefined) => pod?.status?.containerStatuses?.[0]?.state?.running !== undefined;
  /** A pod the kubelet refused, or whose manifest it refused: either way nothing of it runs. */
  const refused = (view: DebugPods, name: string) => byName(view, name)?.lifecycle === 'rejected' || manifestRefused(view, name);
  /** Settled: refused, or running in its own directory. */
  const settled = (view: DebugPods, name: string) => refused(view, name) || running(byName(view, name));

  /** Decoys where the hostile names point: `<dir>/victim-vol` (from the volume directory) and `<dir>/victim-uid` (from <root>/pods). */
  const decoys = (dir: string) => ({ vol: join(dir, 'victim-vol'), uid: join(dir, 'victim-uid') });

  beforeAll(async () => {
    k = await startStaticPodKubelet({ endpoint: 'embedded', nodeName: NODE, prefix: 'kts-hostile-' });
    // <root> is <dir>/root: `../../victim-uid` from <root>/pods lands on <dir>/victim-uid, and the
    // volume's six `..` from <root>/pods/<uid>/volumes/kubernetes.io~empty-dir climb out to / and beyond.
    const { vol, uid } = decoys(k.dir);
    for (const d of [vol, uid]) {
      mkdirSync(d);
      chmodSync(d, 0o700);
      writeFileSync(join(d, 'precious.txt'), 'keep', { mode: 0o644 });
    }
    writeFileSync(join(k.manifests, 'good.json'), manifest('good', [{ name: 'data', emptyDir: {} }]));
    for (const [name, text] of Object.entries(HOSTILE)) writeFileSync(join(k.manifests, `${name}.json`), text);
    await until('good running, every hostile pod refused or running', async () => {
      const view = await debugPods(k);
      return running(byName(view, 'good')) && Object.keys(HOSTILE).every((name) => settled(view, name));
    }, 60_000, () => k.stderr());
  }, 90_000);

  afterAll(async () => {
    await restarted?.dispose((name) => name.endsWith(`-${NODE}`));
    if (!restarted) await k?.dispose((name) => name.endsWith(`-${NODE}`));
  }, 60_000);

  it('refuses two volumes named d, a uid that is a path and a volume name that is a path; the good pod runs; the kubelet is up', async () => {
    const view = await debugPods(k);
    for (const name of ['twice-d', 'victim-vol', 'victim-uid']) expect(refused(view, name), name).toBe(true);
    const twice = byName(view, 'twice-d');
    if (twice) expect(twice.status).toMatchObject({ phase: 'Failed', reason: 'InvalidPodSpec', message: expect.stringContaining('spec.volumes[1].name: Duplicate value: "d"') });
    expect(running(byName(view, 'good'))).toBe(true);
    expect(k.child.exitCode).toBeNull();
    expect(k.stderr()).not.toContain('internal error');
  });

  it('gives pod u1 with volume a:b and pod u1:a with volume b their own volume directories when they run', async () => {
    const view = await debugPods(k);
    for (const [name, uid, volume] of [['colon-u1', 'u1', 'a:b'], ['colon-u1a', 'u1:a', 'b']] as const) {
      if (refused(view, name)) continue;
      expect(running(byName(view, name)), name).toBe(true);
      expect(statSync(join(k.root, 'pods', uid, 'volumes/kubernetes.io~empty-dir', volume)).isDirectory()).toBe(true);
    }
  });

  it('leaves the decoys outside the root as they were, while the pods exist and after their manifests are removed', async () => {
    for (const name of Object.keys(HOSTILE)) rmSync(join(k.manifests, `${name}.json`));
    await until('the hostile pods gone', async () => {
      const view = await debugPods(k);
      return Object.keys(HOSTILE).every((name) => byName(view, name) === undefined) && view.orphans.length === 0;
    }, 30_000, () => k.stderr());
    for (const d of Object.values(decoys(k.dir))) {
      expect(statSync(d).mode & 0o7777).toBe(0o700);
      expect(statSync(d).gid).toBe(process.getgid?.());
      expect(statSync(join(d, 'precious.txt')).mode & 0o7777).toBe(0o644);
      expect(readFileSync(join(d, 'precious.txt'), 'utf8')).toBe('keep');
    }
    expect(k.child.exitCode).toBeNull();
  }, 40_000);

  it('starts again with the colliding manifests in place, and runs the good pod', async () => {
    for (const name of ['twice-d', 'colon-u1', 'colon-u1a']) writeFileSync(join(k.manifests, `${name}.json`), HOSTILE[name as keyof typeof HOSTILE]);
    expect(await k.stop()).toBe(0);
    restarted = await startStaticPodKubelet({ endpoint: 'embedded', nodeName: NODE, dir: k.dir });
    await until('good running again, the colliding pods settled', async () => {
      const view = await debugPods(restarted!);
      return running(byName(view, 'good')) && ['twice-d', 'colon-u1', 'colon-u1a'].every((name) => settled(view, name));
    }, 60_000, () => restarted!.stderr());
    expect(restarted.child.exitCode).toBeNull();
    expect(restarted.stderr()).not.toContain('internal error');
  }, 90_000);
});
