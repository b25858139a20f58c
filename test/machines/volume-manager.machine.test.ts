import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, setup, SimulatedClock, type AnyActorRef, type AnyEventObject } from 'xstate';
import type { Pod } from '../../src/domain/pod/types.js';
import type { Volume } from '../../src/domain/volumes/sources.js';
import {
  volumeManagerMachine,
  VOLUME_MANAGER_EFFECTS,
  type CleanupOrphanedPodDirectoriesInput,
  type PodDirectoryOutcome,
  type PodVolumesChanged,
  type ReconstructedVolume,
  type RemovePodDirectoryInput,
  type TearDownReconstructedVolumeInput,
  type VolumeManagerContext,
  type VolumeManagerEvent,
  type VolumeMountFailed,
  type VolumeWaitTimedOut,
} from '../../src/machines/volume-manager.machine.js';
import { fromAnsweringPromise } from '../../src/machines/answering-effect.js';
import { volumeMachine, type MountVolumeInput, type MountVolumeOutput, type UnmountVolumeInput, type VolumeContext } from '../../src/machines/volume.machine.js';
import { KubeletError } from '../../src/domain/errors.js';
import { deferred, type Deferred } from '../support/deferred.js';
import { settle } from '../support/settle.js';

const T0 = Date.UTC(2026, 10, 22, 1, 0, 0);
const flush = () => settle(5);

const cache: Volume = { name: 'cache', emptyDir: {} };
const cfg: Volume = { name: 'cfg', configMap: { name: 'app-config' } };
const logs: Volume = { name: 'logs', hostPath: { path: '/var/log/app', type: 'DirectoryOrCreate' } };
const data: Volume = { name: 'data', nfs: { server: 'nfs.example', path: '/export' } };

/** A pod `uid` with `volumes`, whose one container mounts those named in `mounted` (default: all). */
function makePod(uid: string, volumes: Volume[], mounted: string[] = volumes.map((v) => v.name)): Pod {
  return {
    metadata: { name: `p-${uid}`, namespace: 'ns', uid },
    spec: {
      containers: [{ name: 'web', image: 'nginx:1.27', ...(mounted.length > 0 ? { volumeMounts: mounted.map((name) => ({ name, mountPath: `/mnt/${name}` })) } : {}) }],
      volumes,
    },
  };
}


/**
 * A volume manager with real `volume` children whose effects are fakes, beside fake pod workers
 * (`pod:u1`, `pod:u2`) that record what they are told. A mount or tear-down of a volume named in
 * `holdMount`/`holdUnmount` waits for the test; one named in `failMount` fails. The scan of the disk
 * finds `found` (answered before the harness is handed over); a reconstructed volume's teardown
 * fails while its driver is in `unregistered`.
 */
async function harness(found: ReconstructedVolume[] = []) {
  const clock = new SimulatedClock();
  clock.set(T0);
  const mounts: MountVolumeInput[] = [];
  const unmounts: UnmountVolumeInput[] = [];
  const removals: RemovePodDirectoryInput[] = [];
  const sweeps: CleanupOrphanedPodDirectoriesInput[] = [];
  const holdMount: Record<string, Deferred<MountVolumeOutput>> = {};
  const holdUnmount: Record<string, Deferred<void>> = {};
  const failMount = new Map<string, string | Error>();
  const told: Record<string, PodVolumesChanged[]> = {};
  const emitted: (VolumeMountFailed | VolumeWaitTimedOut)[] = [];
  const reconstructedTeardowns: string[] = [];
  const unregistered = new Set<string>();

  const volume = volumeMachine.provide({
    actors: {
      mountVolume: fromPromise<MountVolumeOutput, MountVolumeInput>(async ({ input }) => {
        mounts.push(input);
        await Promise.resolve();
        const held = holdMount[input.volumeName];
        if (held) { delete holdMount[input.volumeName]; return held.promise; }
        const failure = failMount.get(input.volumeName);
        if (failure !== undefined) throw typeof failure === 'string' ? new Error(failure) : failure;
        if (input.plugin === null) return { hostPath: `/srv/pv-${input.volumeName}`, changed: false, persistent: { claimName: input.volumeName, pvName: `pv-${input.volumeName}`, plugin: 'kubernetes.io/local-volume' } };
        return { hostPath: `/var/lib/kubelet/pods/${input.pod.metadata.uid}/volumes/${(input.plugin ?? 'claim').replace('/', '~')}/${input.volumeName}`, changed: true };
      }),
      unmountVolume: fromPromise<void, UnmountVolumeInput>(async ({ input }) => {
        unmounts.push(input);
        await Promise.resolve();
        const held = holdUnmount[input.volumeName];
        if (held) { delete holdUnmount[input.volumeName]; return held.promise; }
      }),
    },
  });
  const nothingRemoved: PodDirectoryOutcome = { removed: [], kept: [] };
  const manager = volumeManagerMachine.provide({
    actors: {
      volume,
      removePodDirectory: fromAnsweringPromise<PodDirectoryOutcome, RemovePodDirectoryInput>(async (input) => {
        removals.push(input);
        return { removed: [input.podUid], kept: [] };
      }),
      cleanupOrphanedPodDirectories: fromAnsweringPromise<PodDirectoryOutcome, CleanupOrphanedPodDirectoriesInput>(async (input) => {
        sweeps.push(input);
        return nothingRemoved;
      }),
      reconstructVolumes: fromAnsweringPromise<ReconstructedVolume[], void>(async () => found),
      // Waits out its delay on the simulated clock, as the real effect does; stopped meanwhile, it never tears down.
      tearDownReconstructedVolume: fromCallback<AnyEventObject, TearDownReconstructedVolumeInput>(({ input, self, sendBack }) => {
        const timer = clock.setTimeout(() => {
          reconstructedTeardowns.push(`${input.volume.podUid}/${input.volume.dirName}`);
          sendBack(unregistered.has(input.volume.driverName)
            ? { type: 'effect.answered', id: self.id, error: { code: 'KLT_ERR_VOLUME_MOUNT', message: 'driver not registered', retryable: true } }
            : { type: 'effect.answered', id: self.id, output: undefined });
        }, input.delayMs);
        return () => clock.clearTimeout(timer);
      }),
    },
  });
  const fakeWorker = fromCallback<PodVolumesChanged, { uid: string }>(({ input, receive }) => {
    receive((e) => void (told[input.uid] ??= []).push(e));
  });
  const parent = setup({ actors: { manager, fakeWorker } }).createMachine({
    invoke: [
      { src: 'fakeWorker', systemId: 'pod:u1', input: { uid: 'u1' } },
      { src: 'fakeWorker', systemId: 'pod:u2', input: { uid: 'u2' } },
      { id: 'volumeManager', src: 'manager', systemId: 'volumeManager', input: {} },
    ],
  });
  const root = createActor(parent, { clock });
  root.start();
  const ref = root.system.get('volumeManager') as AnyActorRef;
  ref.on('*', (e: VolumeMountFailed | VolumeWaitTimedOut) => void emitted.push(e));
  const send = (e: VolumeManagerEvent) => ref.send(e);
  const context = () => ref.getSnapshot().context as VolumeManagerContext;
  const children = () => ref.getSnapshot().children as Record<string, AnyActorRef>;
  const lists = (uid = 'u1') => (told[uid] ?? []).map((e) => e.unmounted);
  const advance = async (ms: number) => { clock.increment(ms); await flush(); };
  await flush();
  return { clock, mounts, unmounts, removals, sweeps, holdMount, holdUnmount, failMount, told, lists, emitted, send, context, children, advance, reconstructedTeardowns, unregistered };
}

const names = (inputs: { volumeName: string }[]) => inputs.map((i) => i.volumeName).sort();

describe('volumeManagerMachine', () => {
  it('exports exactly its effectful actor srcs', () => {
    expect(VOLUME_MANAGER_EFFECTS).toEqual(['removePodDirectory', 'cleanupOrphanedPodDirectories', 'reconstructVolumes', 'tearDownReconstructedVolume']);
  });

  it('mounts each volume of a pod through its plugin, and tells the worker what is not mounted yet, then an empty list once all are', async () => {
    const h = await harness();
    const cfgMount = deferred<MountVolumeOutput>();
    h.holdMount.cfg = cfgMount;
    h.send({ type: 'volumes.pod.sync', pod: makePod('u1', [cache, cfg, logs]) });
    expect(h.lists()).toEqual([['cache', 'cfg', 'logs']]);
    const plugins = Object.fromEntries(Object.entries(h.children()).map(([id, c]) => [id, (c.getSnapshot().context as VolumeContext).plugin]));
    expect(plugins).toEqual({
      'volume:u1:cache': 'kubernetes.io/empty-dir',
      'volume:u1:cfg': 'kubernetes.io/configmap',
      'volume:u1:logs': 'kubernetes.io/host-path',
    });
    await flush();
    expect(h.mounts.map((m) => [m.volumeName, m.plugin, m.remount])).toEqual([
      ['cache', 'kubernetes.io/empty-dir', false], ['cfg', 'kubernetes.io/configmap', false], ['logs', 'kubernetes.io/host-path', false],
    ]);
    expect(h.lists().at(-1)).toEqual(['cfg']);
    expect(h.context().pods.u1).toMatchObject({
      waiting: true,
      volumes: { cache: { state: 'mounted', error: null }, cfg: { state: 'mounting', error: null }, logs: { state: 'mounted', error: null } },
    });
    cfgMount.resolve({ hostPath: '/var/lib/kubelet/pods/u1/volumes/kubernetes.io~configmap/cfg', changed: true });
    await flush();
    expect(h.lists().at(-1)).toEqual([]);
    expect(h.context().pods.u1?.waiting).toBe(false);
    expect(h.lists('u2')).toEqual([]);
  });

  it('answers a second sync at once and sets up again, at every sync, only the volumes that require it', async () => {
    const h = await harness();
    h.send({ type: 'volumes.pod.sync', pod: makePod('u1', [cache, cfg, logs]) });
    await flush();
    expect(h.mounts.filter((m) => m.remount)).toEqual([]);
    const before = h.told.u1!.length;
    const updated = makePod('u1', [cache, cfg, logs]);
    updated.metadata.labels = { rev: '2' };
    h.send({ type: 'volumes.pod.sync', pod: updated });
    expect(h.told.u1!.slice(before)).toEqual([{ type: 'pod.volumes.changed', unmounted: [] }]);
    await flush();
    expect(h.mounts.filter((m) => m.remount).map((m) => [m.volumeName, m.pod.metadata.labels])).toEqual([['cfg', { rev: '2' }]]);
    expect(h.mounts).toHaveLength(4);
    expect(h.told.u1!.slice(before)).toHaveLength(1);
  });

  it('never mounts a volume no plugin handles: emits its error, and keeps it in the worker\'s list', async () => {
    const h = await harness();
    h.send({ type: 'volumes.pod.sync', pod: makePod('u1', [cache, data]) });
    await flush();
    const message = 'failed to get Plugin from volumeSpec for volume "data" err=no volume plugin matched (source "nfs")';
    expect(h.emitted).toEqual([{ type: 'volume.mount.failed', pod: { namespace: 'ns', name: 'p-u1', uid: 'u1' }, volumeName: 'data', message }]);
    expect(Object.keys(h.children())).toEqual(['volume:u1:cache']);
    expect(h.lists()).toEqual([['cache', 'data'], ['data']]);
    expect(h.context().pods.u1?.volumes.data).toEqual({ state: 'unsupported', error: message });
    h.send({ type: 'volumes.pod.sync', pod: makePod('u1', [cache, data]) });
    expect(h.lists().at(-1)).toEqual(['data']);
    await h.advance(10 * 60_000);
    expect(names(h.mounts)).toEqual(['cache']);
  });

  it('emits each failed set-up with the effect\'s message, and tells the worker once the retry mounted it', async () => {
    const h = await harness();
    h.failMount.set('cfg', 'configmap "app-config" not found');
    h.send({ type: 'volumes.pod.sync', pod: makePod('u1', [cfg]) });
    await flush();
    expect(h.emitted).toEqual([{ type: 'volume.mount.failed', pod: { namespace: 'ns', name: 'p-u1', uid: 'u1' }, volumeName: 'cfg', message: 'configmap "app-config" not found' }]);
    expect(h.context().pods.u1?.volumes.cfg).toMatchObject({ state: 'mounting', error: 'configmap "app-config" not found' });
    await h.advance(500);
    expect(h.emitted).toHaveLength(2);
    h.failMount.delete('cfg');
    await h.advance(1000);
    expect(h.mounts).toHaveLength(3);
    expect(h.lists()).toEqual([['cfg'], []]);
    expect(h.context().pods.u1?.volumes.cfg).toMatchObject({ state: 'mounted', error: null });
  });

  it('tells the worker at once that nothing is to be mounted for a pod whose containers mount no volume', async () => {
    const h = await harness();
    h.send({ type: 'volumes.pod.sync', pod: makePod('u1', [cache, cfg], []) });
    expect(h.lists()).toEqual([[]]);
    expect(h.children()).toEqual({});
  });

  it('leaves alone a volume no container mounts', async () => {
    const h = await harness();
    h.send({ type: 'volumes.pod.sync', pod: makePod('u1', [cache, cfg, logs], ['cfg']) });
    await flush();
    expect(Object.keys(h.children())).toEqual(['volume:u1:cfg']);
    expect(names(h.mounts)).toEqual(['cfg']);
    expect(h.lists()).toEqual([['cfg'], []]);
  });

  it('tears every volume down on release with removeDirectory, removes the directory only once all are down, then forgets the pod', async () => {
    const h = await harness();
    h.send({ type: 'volumes.pod.sync', pod: makePod('u1', [cache, cfg, logs]) });
    h.send({ type: 'volumes.pod.sync', pod: makePod('u2', [cache]) });
    await flush();
    const slow = deferred<void>();
    h.holdUnmount.cfg = slow;
    h.send({ type: 'volumes.pod.release', podUid: 'u1', removeDirectory: true });
    await flush();
    expect(h.unmounts.map((u) => [u.volumeName, u.plugin])).toEqual([['cache', 'kubernetes.io/empty-dir'], ['cfg', 'kubernetes.io/configmap'], ['logs', 'kubernetes.io/host-path']]);
    expect(h.removals).toEqual([]);
    expect(Object.keys(h.context().pods.u1?.volumes ?? {})).toEqual(['cfg']);
    expect(h.context().pods.u1?.volumes.cfg).toMatchObject({ state: 'unmounting', error: null });
    slow.resolve();
    await flush();
    expect(h.removals).toEqual([{ podUid: 'u1' }]);
    expect(h.context().pods.u1).toBeUndefined();
    expect(Object.keys(h.context().pods)).toEqual(['u2']);
    expect(Object.keys(h.children()).sort()).toEqual(['volume:u2:cache']);
  });

  it('tears a volume down after the mount in flight when the pod is released during it', async () => {
    const h = await harness();
    const held = deferred<MountVolumeOutput>();
    h.holdMount.cfg = held;
    h.send({ type: 'volumes.pod.sync', pod: makePod('u1', [cfg]) });
    await flush();
    h.send({ type: 'volumes.pod.release', podUid: 'u1', removeDirectory: true });
    await flush();
    expect(h.unmounts).toEqual([]);
    held.resolve({ hostPath: '/x', changed: true });
    await flush();
    expect(names(h.unmounts)).toEqual(['cfg']);
    expect(h.removals).toEqual([{ podUid: 'u1' }]);
    expect(h.lists()).toEqual([['cfg']]);
  });

  it('keeps a pod released without removeDirectory, mounts nothing again on a later sync, and removes its directory on the final release', async () => {
    const h = await harness();
    h.send({ type: 'volumes.pod.sync', pod: makePod('u1', [cache, cfg]) });
    await flush();
    h.send({ type: 'volumes.pod.release', podUid: 'u1', removeDirectory: false });
    await flush();
    expect(names(h.unmounts)).toEqual(['cache', 'cfg']);
    expect(h.removals).toEqual([]);
    expect(h.context().pods.u1).toMatchObject({ volumes: {}, releasing: true, removeDirectory: false, waiting: false });
    expect(h.children()).toEqual({});
    const told = h.told.u1!.length;
    h.send({ type: 'volumes.pod.sync', pod: makePod('u1', [cache, cfg]) });
    await flush();
    expect(h.mounts).toHaveLength(2);
    expect(h.told.u1).toHaveLength(told);
    h.send({ type: 'volumes.pod.release', podUid: 'u1', removeDirectory: false });
    await flush();
    expect(h.unmounts).toHaveLength(2);
    h.send({ type: 'volumes.pod.release', podUid: 'u1', removeDirectory: true });
    await flush();
    expect(h.removals).toEqual([{ podUid: 'u1' }]);
    expect(h.context().pods.u1).toBeUndefined();
  });

  it('removes the directory of a pod it never knew on release with removeDirectory, and does nothing without', async () => {
    const h = await harness();
    h.send({ type: 'volumes.pod.release', podUid: 'gone', removeDirectory: false });
    await flush();
    expect(h.removals).toEqual([]);
    h.send({ type: 'volumes.pod.release', podUid: 'gone', removeDirectory: true });
    await flush();
    expect(h.removals).toEqual([{ podUid: 'gone' }]);
    expect(h.context().pods).toEqual({});
    expect(h.children()).toEqual({});
  });

  it('sweeps orphaned pod directories keeping the given pods and those it knows, sorted, once per volumes.pods.known', async () => {
    const h = await harness();
    h.send({ type: 'volumes.pod.sync', pod: makePod('u1', [cache]) });
    h.send({ type: 'volumes.pods.known', podUids: ['u3', 'u2', 'u1'] });
    await flush();
    expect(h.sweeps).toEqual([{ keep: ['u1', 'u2', 'u3'] }]);
    h.send({ type: 'volumes.pods.known', podUids: [] });
    await flush();
    expect(h.sweeps).toEqual([{ keep: ['u1', 'u2', 'u3'] }, { keep: ['u1'] }]);
    expect(h.context().sweeps).toBe(2);
    expect(Object.keys(h.children())).toEqual(['volume:u1:cache']);
  });

  it('tears down a volume found on disk of a pod no source has at the sweep, backs off on the clock while its driver is missing, and retries at once when the driver registers', async () => {
    const orphan: ReconstructedVolume = { podUid: 'gone', dirName: 'pv-1', driverName: 'csi.example.com', volumeHandle: '2', uniqueVolumeName: 'kubernetes.io/csi/csi.example.com^2' };
    const ofKnownPod: ReconstructedVolume = { ...orphan, podUid: 'u1' };
    const h = await harness([orphan, ofKnownPod]);
    h.unregistered.add('csi.example.com');
    expect(h.reconstructedTeardowns).toEqual([]);
    h.send({ type: 'volumes.pods.known', podUids: ['u1'] });
    await h.advance(0);
    expect(h.reconstructedTeardowns).toEqual(['gone/pv-1']);
    expect(h.sweeps).toEqual([{ keep: ['gone', 'u1'] }]);
    await h.advance(499);
    expect(h.reconstructedTeardowns).toHaveLength(1);
    await h.advance(1);
    expect(h.reconstructedTeardowns).toHaveLength(2);
    // The second failure waits 1 s; the driver registers before that.
    await h.advance(600);
    expect(h.reconstructedTeardowns).toHaveLength(2);
    h.unregistered.clear();
    h.send({ type: 'volumes.driver.registered', driverName: 'csi.example.com' });
    await h.advance(0);
    expect(h.reconstructedTeardowns).toEqual(['gone/pv-1', 'gone/pv-1', 'gone/pv-1']);
    // The known pod's volume waits for that pod.
    expect(Object.values(h.context().reconstruction ?? {}).map((e) => [e.volume.podUid, e.phase])).toEqual([['u1', 'uncertain']]);
    expect(h.sweeps.at(-1)).toEqual({ keep: [], only: ['gone'] });
    // The replaced teardown, stopped while it waited, does not fire a fourth one.
    await h.advance(2000);
    expect(h.reconstructedTeardowns).toHaveLength(3);
    expect(Object.keys(h.children())).toEqual([]);
  });

  it('emits volume.wait.timedOut with the worker\'s message for a pod it knows', async () => {
    const h = await harness();
    h.send({ type: 'volumes.pod.sync', pod: makePod('u1', [data]) });
    h.emitted.length = 0;
    const message = 'unmounted volumes=[data], unattached volumes=[data], failed to process volumes=[]: timed out waiting for the condition';
    h.send({ type: 'volumes.pod.waitTimedOut', podUid: 'u1', message });
    h.send({ type: 'volumes.pod.waitTimedOut', podUid: 'nobody', message });
    expect(h.emitted).toEqual([{ type: 'volume.wait.timedOut', pod: { namespace: 'ns', name: 'p-u1', uid: 'u1' }, message }]);
  });
});

describe('volumeManagerMachine: ids and names no two volume actors may share', () => {
  it('two volumes named d: neither is mounted, the pod is told why, and the manager goes on', async () => {
    const h = await harness();
    const d: Volume = { name: 'd', emptyDir: {} };
    h.send({ type: 'volumes.pod.sync', pod: makePod('u1', [d, { ...d }, cache]) });
    await flush();
    expect(h.context().pods.u1?.volumes.d).toEqual({ state: 'unsupported', error: 'the pod has more than one volume named "d": none of them is mounted' });
    expect(Object.keys(h.children())).toEqual(['volume:u1:cache']);
    expect(h.emitted).toEqual([expect.objectContaining({ type: 'volume.mount.failed', volumeName: 'd', message: 'the pod has more than one volume named "d": none of them is mounted' })]);
    expect(names(h.mounts)).toEqual(['cache']);
    expect(h.lists().at(-1)).toEqual(['d']);
  });

  it('pod u1 with volume a:b and pod u1:a with volume b get one actor each', async () => {
    const h = await harness();
    h.send({ type: 'volumes.pod.sync', pod: makePod('u1', [{ name: 'a:b', emptyDir: {} }]) });
    h.send({ type: 'volumes.pod.sync', pod: makePod('u1:a', [{ name: 'b', emptyDir: {} }]) });
    await flush();
    expect(Object.keys(h.children()).sort()).toEqual(['volume:u1%3Aa:b', 'volume:u1:a%3Ab']);
    expect(h.mounts.map((m) => [m.pod.metadata.uid, m.volumeName]).sort()).toEqual([['u1', 'a:b'], ['u1:a', 'b']]);
    expect(h.context().pods['u1:a']?.volumes.b?.state).toBe('mounted');
    expect(h.context().pods.u1?.volumes['a:b']?.state).toBe('mounted');
  });

  it('a volume actor that throws fails that volume only, and the manager goes on', async () => {
    const throwing = setup({ types: { input: {} as { volumeName: string } } }).createMachine({
      entry: ({ self }) => {
        if (self.id.endsWith(':bad')) throw new Error('volume bug');
      },
    });
    const manager = volumeManagerMachine.provide({ actors: { volume: throwing as never } });
    const actor = createActor(manager, { input: {} });
    const failed: VolumeMountFailed[] = [];
    actor.on('volume.mount.failed', (e) => void failed.push(e));
    actor.start();
    actor.send({ type: 'volumes.pod.sync', pod: makePod('u1', [{ name: 'bad', emptyDir: {} }, cache]) });
    await flush();
    expect(actor.getSnapshot().status).toBe('active');
    expect(actor.getSnapshot().context.pods.u1?.volumes.bad).toEqual({ state: 'unsupported', error: 'the kubelet failed to set up volume "bad": volume bug' });
    expect(Object.keys(actor.getSnapshot().children)).toEqual(['volume:u1:cache']);
    expect(failed.map((e) => e.message)).toEqual(['the kubelet failed to set up volume "bad": volume bug']);
    actor.send({ type: 'volumes.pod.sync', pod: makePod('u2', [cache]) });
    expect(Object.keys(actor.getSnapshot().children)).toEqual(['volume:u1:cache', 'volume:u2:cache']);
    actor.stop();
  });

  describe('claims', () => {
    const claim: Volume = { name: 'db', persistentVolumeClaim: { claimName: 'db' } };
    const ephemeral: Volume = { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } };

    it('starts a claim\'s actor with no plugin (its PV\'s is known once set up), and tears it down as the PV its set-up named', async () => {
      const h = await harness();
      h.send({ type: 'volumes.pod.sync', pod: makePod('u1', [claim, ephemeral]) });
      await flush();
      const plugins = Object.values(h.children()).map((c) => (c.getSnapshot().context as VolumeContext).plugin);
      expect(plugins).toEqual([null, null]);
      expect(h.lists().at(-1)).toEqual([]);
      h.send({ type: 'volumes.pod.release', podUid: 'u1', removeDirectory: true });
      await flush();
      expect(h.unmounts.find((u) => u.volumeName === 'db')).toEqual({
        podUid: 'u1', volumeName: 'db', plugin: null, persistent: { claimName: 'db', pvName: 'pv-db', plugin: 'kubernetes.io/local-volume' },
      });
    });

    it('a claim that cannot be processed is no SetUp event: the waiting worker is told why at once, and hears nothing more once it mounts', async () => {
      const h = await harness();
      h.failMount.set('db', new KubeletError('KLT_ERR_VOLUME_PROCESS', 'error processing PVC ns/db: PVC is not bound'));
      h.send({ type: 'volumes.pod.sync', pod: makePod('u1', [claim]) });
      await flush();
      expect(h.emitted).toEqual([]);
      expect(h.told.u1?.at(-1)).toEqual({ type: 'pod.volumes.changed', unmounted: ['db'], failedToProcess: [{ volumeName: 'db', message: 'error processing PVC ns/db: PVC is not bound' }] });
      expect(h.context().pods.u1?.volumes.db).toEqual({ state: 'mounting', error: 'error processing PVC ns/db: PVC is not bound', unprocessed: true });
      h.failMount.delete('db');
      await h.advance(600);
      expect(h.told.u1?.at(-1)).toEqual({ type: 'pod.volumes.changed', unmounted: [] });
    });

    it('an operation error is emitted with its whole text (Go names the PV, not the pod\'s volume)', async () => {
      const h = await harness();
      const text = 'MountVolume.NodeAffinity check failed for volume "pv-db" : no matching NodeSelectorTerms';
      h.failMount.set('db', new KubeletError('KLT_ERR_VOLUME_OPERATION', text));
      h.send({ type: 'volumes.pod.sync', pod: makePod('u1', [claim]) });
      await flush();
      expect(h.emitted).toEqual([{ type: 'volume.mount.failed', pod: { namespace: 'ns', name: 'p-u1', uid: 'u1' }, volumeName: 'db', message: text, eventText: text }]);
      expect(h.told.u1?.at(-1)?.failedToProcess).toBeUndefined();
    });
  });
});
