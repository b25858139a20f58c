/**
 * Static pods aimed at the node's files, end to end (issue 40): the real binary on the embedded
 * runtime, with a decoy directory beside its root dir (a 0700 directory holding a 0644 file, as the
 * attacker's target was). A manifest whose emptyDir is named `../../../../../victim-vol` (with
 * fsGroup 4242) and one whose metadata.uid is `../../victim-uid` both aim at the decoys; both are
 * refused by their file with Go's field errors, the decoys stay as they were (modes, owners, bytes)
 * while the manifests are there and after they are removed (whose going starts no kill, release or
 * sweep, by the journal), and a valid pod with a volume runs beside them throughout. A third
 * manifest names a decoy file as its Localhost seccomp profile (`../../victim-vol/precious.txt`
 * from `<root>/seccomp`), which the runtime would read: it is refused as Go refuses it.
 */
import { mkdirSync, unlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStaticPodKubelet, until as waitUntil, type StaticPodKubelet } from '../support/daemon.js';
import { journalLines, journalMark, untilPassAnswered } from '../support/kubelet-journal.js';
import { listTree } from '../support/tree-listing.js';
import { SLEEP_UNTIL_TERM } from '../support/sleeper.js';

const NODE = 'node-hostile';
const SLEEPER = { name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', SLEEP_UNTIL_TERM] };

interface DebugView {
  pods: { name: string; lifecycle: string; status: { phase?: string; containerStatuses?: { state?: { running?: object } }[] } | null }[];
  rejectedManifests: { origin: string; reason: string }[];
}

let k: StaticPodKubelet;
const until = <T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 60_000) => waitUntil(what, probe, ms, () => k.stderr());
const view = async () => (await (await fetch(`http://${k.debug}/debug/pods`)).json()) as DebugView;
const goodRunning = (v: DebugView) => v.pods.find((p) => p.name === `good-${NODE}` && p.lifecycle === 'active')?.status?.containerStatuses?.[0]?.state?.running;
const rejection = (v: DebugView, file: string) => v.rejectedManifests.find((r) => r.origin === join(k.manifests, file))?.reason;
/** The kubelet's directory without its root and manifests: the decoys, and whatever an escape would make. */
const outsideRoot = () => listTree(k.dir, [k.root, k.manifests, k.logs, join(k.dir, 'pki'), join(k.dir, 'kubelet.yaml')]);

describe('static pods aimed outside the root dir, on the embedded runtime', () => {
  let before: string[];

  beforeAll(async () => {
    k = await startStaticPodKubelet({ endpoint: 'embedded', nodeName: NODE, prefix: 'kts-hostile-pods-' });
    for (const name of ['victim-vol', 'victim-uid']) {
      mkdirSync(join(k.dir, name), { mode: 0o700 });
      chmodSync(join(k.dir, name), 0o700);
      writeFileSync(join(k.dir, name, 'precious.txt'), `${name}\n`, { mode: 0o644 });
    }
    before = outsideRoot();
    // <root>/pods/<uid>/volumes/kubernetes.io~empty-dir/ is five levels below the kubelet's directory; <root>/pods two.
    writeFileSync(join(k.manifests, 'volume-name.json'), JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'by-volume' },
      spec: {
        securityContext: { fsGroup: 4242 }, volumes: [{ name: '../../../../../victim-vol', emptyDir: {} }],
        containers: [{ ...SLEEPER, volumeMounts: [{ name: '../../../../../victim-vol', mountPath: '/data' }] }],
      },
    }));
    writeFileSync(join(k.manifests, 'uid.json'), JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'by-uid', uid: '../../victim-uid' }, spec: { containers: [SLEEPER] },
    }));
    writeFileSync(join(k.manifests, 'seccomp.json'), JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'by-seccomp' },
      spec: { securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: '../../victim-vol/precious.txt' } }, containers: [SLEEPER] },
    }));
    writeFileSync(join(k.manifests, 'good.json'), JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'good' },
      spec: {
        terminationGracePeriodSeconds: 2, securityContext: { fsGroup: 4242 }, volumes: [{ name: 'data', emptyDir: {} }],
        containers: [{ ...SLEEPER, volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
      },
    }));
    await until('good running and the hostile manifests refused', async () => {
      const v = await view();
      return goodRunning(v) && rejection(v, 'volume-name.json') && rejection(v, 'uid.json') && rejection(v, 'seccomp.json');
    });
  }, 120_000);

  afterAll(async () => {
    await k?.dispose((name) => name.endsWith(`-${NODE}`));
  }, 60_000);

  it('refuses each hostile manifest by its path, with Go\'s field error', async () => {
    const v = await view();
    expect(rejection(v, 'volume-name.json')).toContain('spec.volumes[0].name: Invalid value: "../../../../../victim-vol": a lowercase RFC 1123 label must consist of');
    expect(rejection(v, 'uid.json')).toContain('metadata.uid: Invalid value: "../../victim-uid": must be a single path segment');
    expect(rejection(v, 'seccomp.json')).toBe('invalid pod: spec.securityContext.seccompProfile.localhostProfile: Invalid value: "../../victim-vol/precious.txt": must not contain \'..\'');
    expect(v.pods.map((p) => p.name).sort()).toEqual([`good-${NODE}`]);
    expect(k.stderr()).toContain('Pod source has manifests it cannot use');
  });

  it('leaves the decoys as they were while the manifests are there, and after they are removed', async () => {
    expect(outsideRoot()).toEqual(before);
    const mark = journalMark(k.root);
    unlinkSync(join(k.manifests, 'volume-name.json'));
    unlinkSync(join(k.manifests, 'uid.json'));
    unlinkSync(join(k.manifests, 'seccomp.json'));
    await until('the rejections cleared', async () => {
      const v = await view();
      return v.rejectedManifests.length === 0 ? v : undefined;
    });
    // The files' going reaches the syncLoop as one `pod.manifest.cleared` each; what it does about
    // them is journaled before a later PLEG pass. Nothing is started: no kill, no volume release,
    // no directory removal or sweep.
    const cleared = () => journalLines(k.root).filter((r) => r.seq > mark && r.actor === 'syncLoop' && r.type === 'event' && r.name === 'pod.manifest.cleared');
    await until('the three manifests cleared in the syncLoop', async () => cleared().length === 3);
    await untilPassAnswered(k.root, cleared()[2]!.seq, 'pleg', 'xstate.after.relistPeriod.pleg.waiting', 10_000, () => k.stderr());
    const since = journalLines(k.root).filter((r) => r.seq > mark);
    expect(since.filter((r) => r.type === 'event' && /^(pod\.kill|volumes\.pod\.release|volumes\.pods\.known)/.test(r.name)).map((r) => `${r.actor} ${r.name}`)).toEqual([]);
    expect(since.filter((r) => r.name === 'spawn' && /removePodDirectory|cleanupOrphanedPodDirectories|killPod/.test(r.payload.child ?? '')).map((r) => r.payload.child)).toEqual([]);
    expect(outsideRoot()).toEqual(before);
    expect(goodRunning(await view())).toBeTruthy();
    expect(k.child.exitCode).toBeNull();
  }, 60_000);
});
