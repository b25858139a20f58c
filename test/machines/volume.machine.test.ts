import { describe, expect, it } from 'vitest';
import { assign, createActor, createMachine, fromPromise, SimulatedClock, type AnyActorRef } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import type { Pod } from '../../src/domain/pod/types.js';
import type { VolumePluginName } from '../../src/domain/volumes/pod-volumes.js';
import {
  volumeMachine,
  VOLUME_EFFECTS,
  type MountVolumeInput,
  type MountVolumeOutput,
  type UnmountVolumeInput,
  type VolumeContext,
  type VolumeEvent,
  type VolumeInput,
  type VolumeReport,
} from '../../src/machines/volume.machine.js';
import { deferred, type Deferred } from '../support/deferred.js';
import { settle } from '../support/settle.js';

const T0 = Date.UTC(2026, 10, 22, 1, 0, 0);

function makePod(image = 'nginx:1.27'): Pod {
  return {
    metadata: { name: 'p', namespace: 'ns', uid: 'u1' },
    spec: { containers: [{ name: 'web', image, volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg' }] }], volumes: [{ name: 'cfg', configMap: { name: 'cfg' } }] },
  };
}


type Answer<T> = T | Error | Deferred<T>;

const flush = () => settle(5);

const mountedAt = (hostPath = '/var/lib/kubelet/pods/u1/volumes/kubernetes.io~configmap/cfg'): MountVolumeOutput => ({ hostPath, changed: true });

/**
 * A parent that invokes one volume with fake effects. Mounts and unmounts answer from queues, then
 * from `fallback` (default: ok at once), or stay pending when given a Deferred; each call is
 * recorded with the simulated time it started at. Everything the volume sends its parent is kept.
 */
function harness(input: Partial<VolumeInput> = {}) {
  const clock = new SimulatedClock();
  clock.set(T0);
  const mounts: { atMs: number; input: MountVolumeInput }[] = [];
  const unmounts: { atMs: number; input: UnmountVolumeInput }[] = [];
  const mountAnswers: Answer<MountVolumeOutput>[] = [];
  const unmountAnswers: Answer<void>[] = [];
  const fallback: { mount: () => MountVolumeOutput | Error; unmount: () => void | Error } = { mount: () => mountedAt(), unmount: () => undefined };
  const reports: VolumeReport[] = [];
  const state = { unmounted: null as unknown };

  async function answer<T>(queue: Answer<T>[], byDefault: () => T | Error): Promise<T> {
    // The first mount starts with the actor; let the test queue its answer first.
    await Promise.resolve();
    const next = queue.length > 0 ? queue.shift()! : byDefault();
    if (next instanceof Error) throw next;
    if (next !== null && typeof next === 'object' && 'promise' in next) return next.promise;
    return next as T;
  }
  const volume = volumeMachine.provide({
    actors: {
      mountVolume: fromPromise<MountVolumeOutput, MountVolumeInput>(async ({ input: i }) => {
        mounts.push({ atMs: clock.now() - T0, input: i });
        return answer(mountAnswers, () => fallback.mount());
      }),
      unmountVolume: fromPromise<void, UnmountVolumeInput>(async ({ input: i }) => {
        unmounts.push({ atMs: clock.now() - T0, input: i });
        return answer(unmountAnswers, () => fallback.unmount());
      }),
    },
  });
  const parent = createMachine({
    invoke: {
      id: 'volume',
      systemId: 'volume:u1:cfg',
      src: volume,
      input: { pod: makePod(), volumeName: 'cfg', plugin: 'kubernetes.io/configmap', requiresRemount: true, ...input },
    },
    on: {
      'volume.unmounted': { actions: ({ event }) => { state.unmounted = { podUid: event['podUid'], volumeName: event['volumeName'] }; } },
      'volume.mounted': { actions: ({ event }) => { reports.push(event as unknown as VolumeReport); } },
      'volume.mount.failed': { actions: ({ event }) => { reports.push(event as unknown as VolumeReport); } },
    },
  });
  const root = createActor(parent, { clock });
  root.start();
  const ref = () => root.system.get('volume:u1:cfg') as AnyActorRef | undefined;
  const value = () => ref()?.getSnapshot().value as unknown;
  const context = () => ref()?.getSnapshot().context as VolumeContext;
  const send = (e: VolumeEvent) => ref()?.send(e);
  const advance = async (ms: number) => { clock.increment(ms); await flush(); };
  return { clock, mounts, unmounts, mountAnswers, unmountAnswers, fallback, reports, state, value, context, send, advance };
}

const failure = (message = 'configmap "cfg" not found') => new Error(message);

describe('volumeMachine', () => {
  it('exports exactly its effectful actor srcs', () => {
    expect(VOLUME_EFFECTS).toEqual(['mountVolume', 'unmountVolume']);
  });

  it('mounts at once, tells its parent volume.mounted and rests in mounted', async () => {
    const h = harness();
    await flush();
    expect(h.mounts).toEqual([{ atMs: 0, input: { pod: makePod(), volumeName: 'cfg', plugin: 'kubernetes.io/configmap', remount: false } }]);
    expect(h.reports).toEqual([{ type: 'volume.mounted', podUid: 'u1', volumeName: 'cfg', hostPath: '/var/lib/kubelet/pods/u1/volumes/kubernetes.io~configmap/cfg', changed: true }]);
    expect(h.value()).toEqual({ mounted: 'current' });
    expect(h.context()).toMatchObject({ everMounted: true, failures: 0, mounts: 1, lastError: null, hostPath: '/var/lib/kubelet/pods/u1/volumes/kubernetes.io~configmap/cfg' });
  });

  it('backs off 500 ms doubling up to 2 min 2 s between failed mounts, retrying right at each delay', async () => {
    const h = harness();
    h.fallback.mount = () => failure();
    await flush();
    expect(h.value()).toBe('backingOff');
    expect(h.reports[0]).toEqual({ type: 'volume.mount.failed', podUid: 'u1', volumeName: 'cfg', error: expect.objectContaining({ message: 'configmap "cfg" not found' }), remount: false });
    const delays = [500, 1000, 2000, 4000, 8000, 16_000, 32_000, 64_000, 122_000, 122_000];
    for (const [i, delay] of delays.entries()) {
      await h.advance(delay - 1);
      expect(h.mounts).toHaveLength(i + 1);
      await h.advance(1);
      expect(h.mounts).toHaveLength(i + 2);
    }
    const starts = h.mounts.map((m) => m.atMs);
    expect(starts.slice(1).map((t, i) => t - starts[i]!)).toEqual(delays);
    expect(h.mounts.every((m) => m.input.remount === false)).toBe(true);
    expect(h.context().everMounted).toBe(false);
    expect(h.reports.filter((r) => r.type === 'volume.mount.failed')).toHaveLength(delays.length + 1);
  });

  it('starts the back-off from 500 ms again after a success', async () => {
    const h = harness();
    h.mountAnswers.push(failure(), failure());
    await flush();
    await h.advance(500);
    await h.advance(1000);
    expect(h.value()).toEqual({ mounted: 'current' });
    expect(h.context().failures).toBe(0);
    h.mountAnswers.push(failure());
    h.send({ type: 'volume.remount', pod: makePod() });
    await flush();
    expect(h.value()).toBe('backingOff');
    await h.advance(499);
    expect(h.mounts).toHaveLength(4);
    await h.advance(1);
    expect(h.mounts).toHaveLength(5);
    expect(h.value()).toEqual({ mounted: 'current' });
  });

  it.each([
    { source: 'configMap', plugin: 'kubernetes.io/configmap', requiresRemount: true, mounts: 2 },
    { source: 'secret', plugin: 'kubernetes.io/secret', requiresRemount: true, mounts: 2 },
    { source: 'emptyDir', plugin: 'kubernetes.io/empty-dir', requiresRemount: false, mounts: 1 },
    { source: 'hostPath', plugin: 'kubernetes.io/host-path', requiresRemount: false, mounts: 1 },
  ] as { source: string; plugin: VolumePluginName; requiresRemount: boolean; mounts: number }[])(
    'sets a $source volume up again on volume.remount only when it requires a remount', async ({ plugin, requiresRemount, mounts }) => {
      const h = harness({ plugin, requiresRemount });
      await flush();
      h.send({ type: 'volume.remount', pod: makePod('nginx:1.28') });
      await flush();
      expect(h.mounts).toHaveLength(mounts);
      expect(h.value()).toEqual({ mounted: 'current' });
      if (mounts === 2) expect(h.mounts[1]?.input).toEqual({ pod: makePod('nginx:1.28'), volumeName: 'cfg', plugin, remount: true });
      expect(h.reports.filter((r) => r.type === 'volume.mounted')).toHaveLength(mounts);
    },
  );

  it('sets up again once, after the mount in flight, when remounts are asked for during it', async () => {
    const h = harness();
    const first = deferred<MountVolumeOutput>();
    h.mountAnswers.push(first);
    await flush();
    h.send({ type: 'volume.remount', pod: makePod('nginx:1.28') });
    h.send({ type: 'volume.remount', pod: makePod('nginx:1.29') });
    await flush();
    expect(h.mounts).toHaveLength(1);
    first.resolve(mountedAt());
    await flush();
    expect(h.mounts.map((m) => [m.input.remount, m.input.pod.spec.containers[0]?.image])).toEqual([[false, 'nginx:1.27'], [true, 'nginx:1.29']]);
    expect(h.value()).toEqual({ mounted: 'current' });
  });

  it('does not set an emptyDir up again after the mount in flight when a remount was asked for during it', async () => {
    const h = harness({ plugin: 'kubernetes.io/empty-dir', requiresRemount: false });
    const first = deferred<MountVolumeOutput>();
    h.mountAnswers.push(first);
    await flush();
    h.send({ type: 'volume.remount', pod: makePod() });
    first.resolve(mountedAt());
    await flush();
    expect(h.mounts).toHaveLength(1);
    expect(h.value()).toEqual({ mounted: 'current' });
  });

  it('sets a claim\'s CSI volume up again on each pod sync once its set-up answered requiresRemount (requiresRepublish), not before', async () => {
    const h = harness({ plugin: null, requiresRemount: false });
    const csiAt = (requiresRemount?: boolean): MountVolumeOutput => ({
      hostPath: '/var/lib/kubelet/pods/u1/volumes/kubernetes.io~csi/pv-1/mount', changed: false,
      persistent: { claimName: 'data', pvName: 'pv-1', plugin: 'kubernetes.io/csi' }, ...(requiresRemount !== undefined ? { requiresRemount } : {}),
    });
    // A failed first set-up says nothing: a sync during the back-off asks for no remount.
    h.mountAnswers.push(failure('Volume not attached according to node status'));
    await flush();
    h.send({ type: 'volume.remount', pod: makePod() });
    await flush();
    expect(h.context().requiresRemount).toBe(false);
    h.mountAnswers.push(csiAt(true));
    await h.advance(500);
    expect(h.mounts).toHaveLength(2);
    expect(h.context().requiresRemount).toBe(true);

    h.send({ type: 'volume.remount', pod: makePod() });
    await flush();
    expect(h.mounts).toHaveLength(3);
    expect(h.mounts[2]!.input.remount).toBe(true);
    // A later answer without the flag does not turn it off: the driver's policy is the volume's.
    h.fallback.mount = () => csiAt();
    h.send({ type: 'volume.remount', pod: makePod() });
    await flush();
    h.send({ type: 'volume.remount', pod: makePod() });
    await flush();
    expect(h.mounts).toHaveLength(5);
    expect(h.value()).toEqual({ mounted: 'current' });
  });

  it('does not set a claim\'s volume up again on a pod sync when its set-up did not ask for it', async () => {
    const h = harness({ plugin: null, requiresRemount: false });
    h.mountAnswers.push({ hostPath: '/srv/data', changed: false, persistent: { claimName: 'data', pvName: 'pv-h', plugin: 'kubernetes.io/host-path' } });
    await flush();
    h.send({ type: 'volume.remount', pod: makePod() });
    await flush();
    expect(h.mounts).toHaveLength(1);
    expect(h.context().requiresRemount).toBe(false);
  });

  it('sets a token up again at refreshAfterMs (80 % of a 3600 s token: 2880 s), not before, and again from the new one', async () => {
    const h = harness({ plugin: 'kubernetes.io/projected' });
    const refreshAfterMs = 0.8 * 3600 * 1000;
    h.fallback.mount = () => ({ ...mountedAt(), refreshAfterMs });
    await flush();
    expect(refreshAfterMs).toBe(2_880_000);
    await h.advance(refreshAfterMs - 1);
    expect(h.mounts).toHaveLength(1);
    await h.advance(1);
    expect(h.mounts.map((m) => [m.atMs, m.input.remount])).toEqual([[0, false], [2_880_000, true]]);
    await h.advance(refreshAfterMs - 1);
    expect(h.mounts).toHaveLength(2);
    await h.advance(1);
    expect(h.mounts.map((m) => m.atMs)).toEqual([0, 2_880_000, 5_760_000]);
  });

  it('does not set up again by time a volume whose content does not expire', async () => {
    const h = harness();
    await flush();
    await h.advance(24 * 3600_000);
    expect(h.mounts).toHaveLength(1);
    expect(h.value()).toEqual({ mounted: 'current' });
  });

  it('keeps a volume mounted once when its remount fails, reports remount: true and sets up again after the back-off', async () => {
    const h = harness();
    await flush();
    h.mountAnswers.push(failure('secret "s" not found'), failure('secret "s" not found'));
    h.send({ type: 'volume.remount', pod: makePod() });
    await flush();
    expect(h.value()).toBe('backingOff');
    expect(h.context()).toMatchObject({ everMounted: true, failures: 1, hostPath: '/var/lib/kubelet/pods/u1/volumes/kubernetes.io~configmap/cfg' });
    expect(h.reports.at(-1)).toEqual({ type: 'volume.mount.failed', podUid: 'u1', volumeName: 'cfg', error: expect.objectContaining({ message: 'secret "s" not found' }), remount: true });
    await h.advance(499);
    expect(h.mounts).toHaveLength(2);
    await h.advance(1);
    expect(h.mounts).toHaveLength(3);
    expect(h.mounts[2]?.input.remount).toBe(true);
    await h.advance(999);
    expect(h.mounts).toHaveLength(3);
    await h.advance(1);
    expect(h.mounts).toHaveLength(4);
    expect(h.value()).toEqual({ mounted: 'current' });
    expect(h.context().failures).toBe(0);
  });

  it('tears a mounted volume down on volume.unmount and tells its parent the pod and name', async () => {
    const h = harness();
    await flush();
    h.send({ type: 'volume.unmount' });
    await flush();
    expect(h.unmounts).toEqual([{ atMs: 0, input: { podUid: 'u1', volumeName: 'cfg', plugin: 'kubernetes.io/configmap' } }]);
    expect(h.state.unmounted).toEqual({ podUid: 'u1', volumeName: 'cfg' });
  });

  it('takes no event once unmounted, as a final state would', async () => {
    const h = harness();
    await flush();
    h.send({ type: 'volume.unmount' });
    await flush();
    expect(h.value()).toBe('unmounted');
    const before = h.context();
    h.send({ type: 'volume.remount', pod: makePod() });
    h.send({ type: 'volume.unmount' });
    await h.advance(10_000);
    expect(h.context()).toBe(before);
    expect(h.mounts).toHaveLength(1);
    expect(h.unmounts).toHaveLength(1);
  });

  it('tears a backing-off volume down at once, without mounting again', async () => {
    const h = harness();
    h.fallback.mount = () => failure();
    await flush();
    expect(h.value()).toBe('backingOff');
    h.send({ type: 'volume.unmount' });
    await flush();
    expect(h.unmounts).toHaveLength(1);
    expect(h.state.unmounted).toEqual({ podUid: 'u1', volumeName: 'cfg' });
    await h.advance(10_000);
    expect(h.mounts).toHaveLength(1);
  });

  it.each([
    { outcome: 'succeeds', settle: (d: Deferred<MountVolumeOutput>) => d.resolve(mountedAt()) },
    { outcome: 'fails', settle: (d: Deferred<MountVolumeOutput>) => d.reject(failure()) },
  ])('lets a mount in flight finish before the tear-down when volume.unmount arrives (the mount $outcome)', async ({ settle: finish }) => {
    const h = harness();
    const first = deferred<MountVolumeOutput>();
    h.mountAnswers.push(first);
    await flush();
    h.send({ type: 'volume.unmount' });
    h.send({ type: 'volume.remount', pod: makePod() });
    await flush();
    expect(h.value()).toBe('mounting');
    expect(h.unmounts).toHaveLength(0);
    finish(first);
    await flush();
    expect(h.mounts).toHaveLength(1);
    expect(h.unmounts).toHaveLength(1);
    expect(h.state.unmounted).toEqual({ podUid: 'u1', volumeName: 'cfg' });
  });

  it('retries a failed tear-down after the back-off', async () => {
    const h = harness();
    await flush();
    h.unmountAnswers.push(new Error('device or resource busy'), new Error('device or resource busy'));
    h.send({ type: 'volume.unmount' });
    await flush();
    expect(h.value()).toBe('unmountBackingOff');
    expect(h.context().lastError?.message).toBe('device or resource busy');
    await h.advance(499);
    expect(h.unmounts).toHaveLength(1);
    await h.advance(1);
    expect(h.unmounts).toHaveLength(2);
    await h.advance(999);
    expect(h.unmounts).toHaveLength(2);
    await h.advance(1);
    expect(h.unmounts.map((u) => u.atMs)).toEqual([0, 500, 1500]);
    expect(h.state.unmounted).toEqual({ podUid: 'u1', volumeName: 'cfg' });
  });

  it('backs a tear-down off on its own count, not on the failed mounts before it (Go resets the back-off per operation)', async () => {
    const h = harness();
    h.mountAnswers.push(failure(), failure(), failure(), failure());
    await flush();
    for (const delay of [500, 1000, 2000]) await h.advance(delay);
    expect(h.mounts).toHaveLength(4);
    h.unmountAnswers.push(new Error('device or resource busy'));
    h.send({ type: 'volume.unmount' });
    await flush();
    expect(h.value()).toBe('unmountBackingOff');
    const failedAt = h.unmounts[0]!.atMs;
    await h.advance(500);
    expect(h.unmounts.map((u) => u.atMs - failedAt)).toEqual([0, 500]);
  });
});

describe('volumeMachine as a graph', () => {
  // The machine logic alone, traversed with the answers its effects can give.
  const idOf = (state: 'mounting' | 'remounting' | 'unmounting') => volumeMachine.states[state]!.invoke[0]!.id;
  const events = [
    { type: `xstate.done.actor.${idOf('mounting')}`, output: mountedAt() },
    { type: `xstate.error.actor.${idOf('mounting')}`, error: failure() },
    { type: `xstate.done.actor.${idOf('remounting')}`, output: mountedAt() },
    { type: `xstate.done.actor.${idOf('remounting')}`, output: { ...mountedAt(), refreshAfterMs: 2_880_000 } },
    { type: `xstate.error.actor.${idOf('remounting')}`, error: failure() },
    { type: `xstate.done.actor.${idOf('unmounting')}` },
    { type: `xstate.error.actor.${idOf('unmounting')}`, error: failure() },
    { type: 'volume.remount', pod: makePod() },
    { type: 'volume.unmount' },
  ];
  // The parent reports become plain assigns (no parent here): the context changes stay those of the machine.
  const alone = volumeMachine.provide({
    actions: {
      recordMounted: assign(({ context, event }) => ({
        failures: 0, everMounted: true, lastError: null, mounts: context.mounts + 1,
        refreshAfterMs: (event as { output?: MountVolumeOutput }).output?.refreshAfterMs ?? null,
      })),
      recordMountFailure: assign(({ context }) => ({ failures: context.failures + 1 })),
      reportUnmounted: () => {},
    },
  });
  const paths = getShortestPaths(alone, {
    events: events as never,
    input: { pod: makePod(), volumeName: 'cfg', plugin: 'kubernetes.io/configmap', requiresRemount: true },
    serializeState: (s: { value: unknown; context: VolumeContext }) =>
      JSON.stringify([s.value, s.context.everMounted, s.context.remountPending, s.context.unmountRequested]),
  } as never);
  const values = new Set(paths.map((p) => JSON.stringify(p.state.value)));

  it('reaches every state a volume can rest in', () => {
    for (const v of ['mounting', 'backingOff', { mounted: 'current' }, { mounted: 'expiring' }, 'remounting', 'unmounting', 'unmountBackingOff', 'unmounted']) {
      expect(values.has(JSON.stringify(v))).toBe(true);
    }
    const leaves = Object.entries(volumeMachine.states).flatMap(([name, node]) =>
      Object.keys(node.states).length === 0 ? [JSON.stringify(name)] : Object.keys(node.states).map((sub) => JSON.stringify({ [name]: sub })));
    expect([...values].sort()).toEqual(leaves.sort());
  });

  it('reaches unmounted only through volume.unmount', () => {
    const ends = paths.filter((p) => p.state.value === 'unmounted');
    expect(ends.length).toBeGreaterThan(0);
    for (const path of ends) expect(path.steps.map((s) => s.event.type as string)).toContain('volume.unmount');
  });

  it('never starts a remount before the volume was mounted once', () => {
    for (const path of paths.filter((p) => p.state.value === 'remounting')) {
      expect(path.steps.map((s) => s.event.type as string)).toContain(`xstate.done.actor.${idOf('mounting')}`);
    }
  });
});
