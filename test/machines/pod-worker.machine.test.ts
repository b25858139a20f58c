import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise, SimulatedClock, type AnyActorRef } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import type { PodSyncOutcome } from '../../src/domain/pod/sync-outcome.js';
import type { Pod, PodStatus } from '../../src/domain/pod/types.js';
import type { RuntimePodStatus } from '../../src/domain/runtime/pod-status.js';
import {
  podWorkerMachine,
  POD_WORKER_EFFECTS,
  type GetPodStatusInput,
  type KillPodInput,
  type PodStatusObservation,
  type PodWorkerEvent,
  type PodWorkerContext,
  type PodWorkerInput,
  type SyncPodInput,
} from '../../src/machines/pod-worker.machine.js';
import { deferred, type Deferred } from '../support/deferred.js';
import { settle } from '../support/settle.js';

const T0 = Date.UTC(2026, 10, 22, 1, 0, 0);
const ns = (ms: number) => String(BigInt(ms) * 1_000_000n);

function makePod(name = 'web', spec: Partial<Pod['spec']> = {}): Pod {
  return { metadata: { name: 'p', namespace: 'ns', uid: 'u1' }, spec: { containers: [{ name, image: 'nginx:1.27' }], ...spec } };
}

function runtimeWith(state: 'none' | 'running' | 'exited0' | 'exited1', container = 'web'): RuntimePodStatus {
  if (state === 'none') return { uid: 'u1', name: 'p', namespace: 'ns', ips: [], sandboxes: [], containers: [] };
  const ready = state === 'running';
  return {
    uid: 'u1', name: 'p', namespace: 'ns', ips: ready ? ['10.0.0.5'] : [],
    sandboxes: [{ id: 'sb', attempt: 0, ready, createdAt: ns(T0), ips: ['10.0.0.5'], hasNetworkStatus: true }],
    containers: [{
      id: 'c1', name: container, state: state === 'running' ? 'running' : 'exited', createdAt: ns(T0), startedAt: ns(T0), finishedAt: state === 'running' ? '0' : ns(T0 + 1000),
      exitCode: state === 'exited1' ? 1 : 0, reason: '', message: '', image: 'nginx:1.27', imageRef: 'sha256:1', hash: 1, restartCount: 0, sandboxId: 'sb',
    }],
  };
}

const ok = (podUid = 'u1'): PodSyncOutcome => ({ podUid, ok: true, steps: [] });
const failed = (podUid = 'u1'): PodSyncOutcome => ({
  podUid, ok: false, steps: [{ step: 'startContainer', target: 'web', ok: false, reason: 'ErrImagePull', error: { code: 'KLT_ERR_IMAGE_PULL', message: 'pull failed', retryable: true } }],
});


const flush = () => settle(5);

/** The delays of the timers armed on `clock` from now on, and of those still pending (not fired nor cleared). */
function trackTimers(clock: SimulatedClock) {
  const armed: number[] = [];
  const pending = new Map<number, number>();
  const set = clock.setTimeout.bind(clock);
  const clear = clock.clearTimeout.bind(clock);
  clock.setTimeout = (fn, timeout) => {
    armed.push(timeout);
    const id: number = set(() => { pending.delete(id); fn(); }, timeout);
    pending.set(id, timeout);
    return id;
  };
  clock.clearTimeout = (id) => { pending.delete(id as number); clear(id); };
  return { armed, pending: () => [...pending.values()] };
}

/**
 * A parent that invokes one pod worker with fake effects. Syncs and kills answer from queues
 * (default: ok at once) or stay pending when given a Deferred; status reads return `runtime`.
 * With `volumeManager`, a fake volume manager (system id `volumeManager`) beside the worker records
 * what it is sent in `volumeRequests`; the test answers for it with `send`.
 */
function harness(input: Partial<PodWorkerInput> = {}, opts: { volumeManager?: boolean } = {}) {
  const clock = new SimulatedClock();
  clock.set(T0);
  const syncs: SyncPodInput[] = [];
  const kills: KillPodInput[] = [];
  const statusReads: GetPodStatusInput[] = [];
  const statuses: PodStatus[] = [];
  const syncAnswers: (PodSyncOutcome | Error | Deferred<PodSyncOutcome>)[] = [];
  const killAnswers: (PodSyncOutcome | Error | Deferred<PodSyncOutcome>)[] = [];
  const volumeRequests: { type: string; pod?: Pod; podUid?: string; message?: string }[] = [];
  const state = { runtime: runtimeWith('running'), terminated: null as unknown, exitedContainerIds: undefined as unknown, crashed: null as Error | null };

  const answer = async (queue: (PodSyncOutcome | Error | Deferred<PodSyncOutcome>)[]) => {
    // The first sync starts with the actor; let the test queue its answer first.
    await Promise.resolve();
    const next = queue.shift() ?? ok();
    if (next instanceof Error) throw next;
    if ('promise' in next) return next.promise;
    return next;
  };
  const worker = podWorkerMachine.provide({
    actors: {
      syncPod: fromPromise<PodSyncOutcome, SyncPodInput>(async ({ input: i }) => { syncs.push(i); return answer(syncAnswers); }),
      killPod: fromPromise<PodSyncOutcome, KillPodInput>(async ({ input: i }) => { kills.push(i); return answer(killAnswers); }),
      getPodStatus: fromPromise<PodStatusObservation, GetPodStatusInput>(async ({ input: i }) => {
        statusReads.push(i);
        return { runtimeStatus: state.runtime, observedAtMs: clock.now() };
      }),
    },
  });
  const volumeManager = fromCallback<{ type: string }>(({ receive }) => { receive((e) => void volumeRequests.push(e)); });
  const parent = createMachine({
    invoke: [
      ...(opts.volumeManager ? [{ id: 'volumeManager', systemId: 'volumeManager', src: volumeManager }] : []),
      {
        id: 'pod:u1',
        systemId: 'pod:u1',
        src: worker,
        input: { pod: makePod(), ...input },
      },
    ],
    on: {
      'pod.status.updated': { actions: ({ event }) => { statuses.push((event as unknown as { status: PodStatus }).status); } },
      'pod.worker.terminated': { actions: ({ event }) => { state.terminated = { podUid: event['podUid'] }; state.exitedContainerIds = event['exitedContainerIds']; } },
      // As the syncLoop does: a worker that throws is the parent's to handle.
      'xstate.error.actor.pod:u1': { actions: ({ event }) => { state.crashed = event['error'] as Error; } },
    },
  });
  const root = createActor(parent, { clock });
  root.start();
  const workerRef = () => root.system.get('pod:u1') as AnyActorRef | undefined;
  const value = () => workerRef()?.getSnapshot().value as unknown;
  const send = (e: PodWorkerEvent) => workerRef()?.send(e);
  const advance = async (ms: number) => { clock.increment(ms); await flush(); };
  const context = () => workerRef()?.getSnapshot().context as PodWorkerContext;
  return { clock, syncs, kills, statusReads, statuses, syncAnswers, killAnswers, volumeRequests, state, value, context, send, advance, workerRef, root };
}

describe('podWorkerMachine', () => {
  it('exports exactly its effectful actor srcs', () => {
    expect(POD_WORKER_EFFECTS).toEqual(['syncPod', 'killPod', 'getPodStatus']);
  });

  it('syncs the pod at once, reports its status and goes idle', async () => {
    const h = harness();
    await flush();
    expect(h.syncs).toHaveLength(1);
    expect(h.syncs[0]).toEqual({ pod: makePod(), probes: {} });
    expect(h.statusReads).toEqual([{ podUid: 'u1' }]);
    expect(h.statuses).toHaveLength(1);
    expect(h.statuses[0]?.phase).toBe('Running');
    expect(h.value()).toBe('idle');
  });

  it('takes the status a sync that changed nothing hands back, without reading it again', async () => {
    const h = harness({ resyncIntervalMs: 60_000 });
    await flush();
    expect(h.statusReads).toHaveLength(1);
    expect(h.statuses.map((s) => s.phase)).toEqual(['Running']);

    // The periodic resync finds nothing to do; meanwhile the container exited, as its view says.
    h.syncAnswers.push({ ...ok(), podStatus: { runtimeStatus: runtimeWith('exited1'), observedAtMs: T0 + 60_000 } });
    await h.advance(60_000);
    expect(h.syncs).toHaveLength(2);
    expect(h.statusReads).toHaveLength(1);
    expect(h.statuses).toHaveLength(2);
    expect(h.statuses[1]?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(1);
    expect(h.value()).toBe('idle');
  });

  it('plans the periodic resync from the last runtime view, and any other sync from a fresh read', async () => {
    const h = harness({ resyncIntervalMs: 60_000 });
    await flush();
    expect(h.syncs[0]?.podStatus).toBeUndefined();
    await h.advance(60_000);
    expect(h.syncs).toHaveLength(2);
    expect(h.syncs[1]?.podStatus).toEqual(runtimeWith('running'));
    h.send({ type: 'pod.sync.requested', reason: 'pleg' });
    await flush();
    expect(h.syncs).toHaveLength(3);
    expect(h.syncs[2]?.podStatus).toBeUndefined();
  });

  it('plans a sync the PLEG asked for during a sync from the status read after it, when that read shows the events', async () => {
    const h = harness();
    const first = deferred<PodSyncOutcome>();
    // The second sync finds nothing to do, as the runtime manager says when it plans from a view that shows all running.
    h.syncAnswers.push(first, { ...ok(), podStatus: { runtimeStatus: runtimeWith('running'), observedAtMs: T0 } });
    await flush();
    // The relist saw the sandbox and the container start while the first sync still ran.
    h.send({ type: 'pod.sync.requested', reason: 'pleg', runtimeEvents: [{ type: 'ContainerStarted', containerId: 'sb' }, { type: 'ContainerStarted', containerId: 'c1' }] });
    first.resolve(ok());
    await flush();
    expect(h.statusReads).toHaveLength(1);
    expect(h.syncs).toHaveLength(2);
    expect(h.syncs[1]?.podStatus).toEqual(runtimeWith('running'));
  });

  it('reads afresh for a PLEG sync whose events the last view does not show, or when anything else asked too', async () => {
    const h = harness();
    await flush();
    // The view shows c1 running: its death is news.
    h.send({ type: 'pod.sync.requested', reason: 'pleg', runtimeEvents: [{ type: 'ContainerDied', containerId: 'c1' }] });
    await flush();
    expect(h.syncs[1]?.podStatus).toBeUndefined();

    const held = deferred<PodSyncOutcome>();
    h.syncAnswers.push(held);
    h.send({ type: 'pod.sync.requested', reason: 'pleg', runtimeEvents: [{ type: 'ContainerStarted', containerId: 'c1' }] });
    await flush();
    expect(h.syncs[2]?.podStatus).toEqual(runtimeWith('running'));
    // During that sync: a shown event and a spec update; the spec update needs a read.
    h.send({ type: 'pod.sync.requested', reason: 'pleg', runtimeEvents: [{ type: 'ContainerStarted', containerId: 'c1' }] });
    h.send({ type: 'pod.spec.updated', pod: makePod() });
    held.resolve(ok());
    await flush();
    expect(h.syncs).toHaveLength(4);
    expect(h.syncs[3]?.podStatus).toBeUndefined();
  });

  it('reads afresh at the resync after the PLEG dropped the pod\'s events, then plans from its view again', async () => {
    const h = harness({ resyncIntervalMs: 60_000 });
    await flush();
    h.send({ type: 'pod.runtime.unseen' });
    await h.advance(60_000);
    expect(h.syncs).toHaveLength(2);
    expect(h.syncs[1]?.podStatus).toBeUndefined();
    await h.advance(60_000);
    expect(h.syncs).toHaveLength(3);
    expect(h.syncs[2]?.podStatus).toEqual(runtimeWith('running'));
  });

  it('coalesces two spec updates that arrive during a sync into one more sync with the latest spec', async () => {
    const h = harness();
    const first = deferred<PodSyncOutcome>();
    h.syncAnswers.push(first);
    await flush();
    expect(h.value()).toEqual({ syncing: 'runtime' });
    h.send({ type: 'pod.spec.updated', pod: makePod('web2') });
    h.send({ type: 'pod.spec.updated', pod: makePod('web3') });
    first.resolve(ok());
    await flush();
    expect(h.syncs.map((s) => s.pod.spec.containers[0]?.name)).toEqual(['web', 'web3']);
    expect(h.value()).toBe('idle');
  });

  it('moves to terminating right after the sync when pod.kill.requested arrives while syncing, and ends terminated', async () => {
    const h = harness({ pod: makePod('web', { terminationGracePeriodSeconds: 45 }) });
    const first = deferred<PodSyncOutcome>();
    h.syncAnswers.push(first);
    await flush();
    h.send({ type: 'pod.kill.requested', reason: 'deleted' });
    h.send({ type: 'pod.spec.updated', pod: makePod('web', { terminationGracePeriodSeconds: 45 }) });
    expect(h.kills).toHaveLength(0);
    first.resolve(ok());
    await flush();
    expect(h.syncs).toHaveLength(1);
    expect(h.kills).toEqual([{ pod: makePod('web', { terminationGracePeriodSeconds: 45 }), gracePeriodSeconds: 45 }]);
    expect(h.value()).toBe('terminated');
    expect(h.state.terminated).toEqual({ podUid: 'u1' });
  });

  it('ends terminated naming the exited containers of the read after the kill, and none while a view shows one running', async () => {
    const h = harness();
    await expect.poll(() => h.value()).toBe('idle');
    // The kill fails and the read after it still shows the container running.
    h.killAnswers.push({ podUid: 'u1', ok: false, steps: [] });
    h.send({ type: 'pod.kill.requested', reason: 'deleted' });
    await expect.poll(() => h.value()).toEqual({ terminating: 'retrying' });
    h.state.runtime = runtimeWith('exited0');
    await h.advance(10_000);
    await expect.poll(() => h.value()).toBe('terminated');
    expect(h.state.exitedContainerIds).toEqual(['c1']);

    const running = harness();
    await expect.poll(() => running.value()).toBe('idle');
    // A kill that answers ok while the runtime still shows the container running: its removal is left to the deletor's own read.
    running.send({ type: 'pod.kill.requested', reason: 'deleted' });
    await expect.poll(() => running.value()).toBe('terminated');
    expect(running.state.exitedContainerIds).toBeUndefined();
  });

  it('kills with the requested grace period, and restarts the kill when a second request shortens it', async () => {
    const h = harness();
    await flush();
    const slow = deferred<PodSyncOutcome>();
    h.killAnswers.push(slow);
    h.send({ type: 'pod.kill.requested', gracePeriodSeconds: 20, reason: 'deleted' });
    await flush();
    h.send({ type: 'pod.kill.requested', gracePeriodSeconds: 25, reason: 'deleted again' });
    await flush();
    expect(h.kills.map((k) => k.gracePeriodSeconds)).toEqual([20]);
    h.send({ type: 'pod.kill.requested', gracePeriodSeconds: 2, reason: 'evicted' });
    await flush();
    expect(h.kills.map((k) => k.gracePeriodSeconds)).toEqual([20, 2]);
    expect(h.state.terminated).toEqual({ podUid: 'u1' });
  });

  it('ends an eviction with status Failed, reason Evicted and the message, even when a deletion follows (#18)', async () => {
    const h = harness();
    await flush();
    const condition = { type: 'DisruptionTarget', status: 'True' as const, reason: 'TerminationByKubelet', message: 'The node was low on resource: memory. ' };
    const eviction = { reason: 'Evicted', message: 'The node was low on resource: memory. ', condition };
    h.send({ type: 'pod.kill.requested', gracePeriodSeconds: 1, reason: 'evicted', eviction });
    h.send({ type: 'pod.kill.requested', gracePeriodSeconds: 30, reason: 'deleted' });
    h.state.runtime = runtimeWith('exited1');
    await flush();
    expect(h.kills.map((k) => k.gracePeriodSeconds)).toEqual([1]);
    expect(h.statuses.at(-1)).toMatchObject({ phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory. ' });
    expect(h.statuses.at(-1)?.conditions?.filter((c) => c.type === 'DisruptionTarget')).toEqual([{ ...condition, lastTransitionTime: expect.any(String) }]);
    expect(h.state.terminated).toEqual({ podUid: 'u1' });
  });

  it('retries a failed kill after the back-off period', async () => {
    const h = harness();
    await flush();
    h.killAnswers.push({ podUid: 'u1', ok: false, steps: [{ step: 'killContainer', target: 'web', ok: false, error: { code: 'KLT_ERR_CRI_FAILED', message: 'x', retryable: true } }] });
    h.send({ type: 'pod.kill.requested', reason: 'deleted' });
    await flush();
    expect(h.value()).toEqual({ terminating: 'retrying' });
    await h.advance(9_999);
    expect(h.kills).toHaveLength(1);
    await h.advance(1);
    expect(h.kills).toHaveLength(2);
    expect(h.state.terminated).toEqual({ podUid: 'u1' });
  });

  it.each([
    { jitter: 0, wait: 60_000 },
    { jitter: 0.5, wait: 75_000 },
  ])('resyncs after the resync interval (jitter fraction $jitter → $wait ms)', async ({ jitter, wait }) => {
    const h = harness({ resyncJitterFraction: jitter });
    await flush();
    await h.advance(wait - 1);
    expect(h.syncs).toHaveLength(1);
    await h.advance(1);
    expect(h.syncs).toHaveLength(2);
  });

  it.each([
    { name: 'reports a failed step', answer: () => failed() },
    { name: 'rejects', answer: () => new Error('runtime gone') },
  ])('backs off 10 s when the sync $name', async ({ answer }) => {
    const h = harness();
    h.syncAnswers.push(answer());
    await flush();
    expect(h.value()).toBe('backingOff');
    await h.advance(9_999);
    expect(h.syncs).toHaveLength(1);
    await h.advance(1);
    expect(h.syncs).toHaveLength(2);
    expect(h.value()).toBe('idle');
  });

  it('keeps the image pull back-off: each sync after a failed pull is told when it ends, 10 s then 20 s from the failure', async () => {
    const h = harness();
    const pullFailed = (atMs: number): PodSyncOutcome => {
      const f = failed();
      return { ...f, steps: f.steps.map((s) => ({ ...s, pullFailure: { image: 'app:1', atMs } })) };
    };
    h.syncAnswers.push(pullFailed(T0 + 5));
    await flush();
    expect(h.syncs[0]).not.toHaveProperty('imagePullBackOffEnds');
    // Go's ImagePullBackOff: the worker still retries on its own back-off; the runtime refuses to pull until then.
    h.syncAnswers.push(pullFailed(T0 + 10_020));
    await h.advance(10_000);
    expect(h.syncs[1]?.imagePullBackOffEnds).toEqual({ 'app:1': T0 + 10_005 });
    await h.advance(10_000);
    expect(h.syncs[2]?.imagePullBackOffEnds).toEqual({ 'app:1': T0 + 30_020 });
  });

  it('takes its image pull back-off policy from its input', async () => {
    const h = harness({ imagePullBackOff: { initialMs: 5_000, maxMs: 150_000 } });
    h.syncAnswers.push({ ...failed(), steps: failed().steps.map((s) => ({ ...s, pullFailure: { image: 'app:1', atMs: T0 } })) });
    await flush();
    await h.advance(10_000);
    expect(h.syncs[1]?.imagePullBackOffEnds).toEqual({ 'app:1': T0 + 5_000 });
  });

  it('syncs at once when a sync is requested during the back-off', async () => {
    const h = harness();
    h.syncAnswers.push(failed());
    await flush();
    h.send({ type: 'pod.sync.requested', reason: 'pleg' });
    await flush();
    expect(h.syncs).toHaveLength(2);
  });

  it('shows the start failure reason of a failed sync as the waiting reason', async () => {
    const h = harness();
    h.state.runtime = runtimeWith('none');
    h.syncAnswers.push(failed());
    await flush();
    expect(h.statuses[0]?.containerStatuses?.[0]?.state?.waiting).toEqual({ reason: 'ErrImagePull', message: 'pull failed' });
  });

  it('passes a liveness failure to the next sync at once, and drops it after a successful sync', async () => {
    const h = harness();
    await flush();
    h.send({ type: 'probe.result.changed', container: 'web', probe: 'liveness', result: 'failure' });
    await flush();
    expect(h.syncs[1]?.probes).toEqual({ livenessFailed: ['web'] });
    h.send({ type: 'pod.sync.requested', reason: 'pleg' });
    await flush();
    expect(h.syncs[2]?.probes).toEqual({});
  });

  it('syncs when a sidecar\'s startup probe passes, telling the sync it started; a regular container\'s success waits', async () => {
    const sidecar = { name: 'side', image: 'busybox', restartPolicy: 'Always' as const, startupProbe: { exec: { command: ['true'] } } };
    const h = harness({ pod: makePod('web', { initContainers: [sidecar] }) });
    await flush();
    h.send({ type: 'probe.result.changed', container: 'web', probe: 'startup', result: 'success' });
    await flush();
    expect(h.syncs).toHaveLength(1);
    h.send({ type: 'probe.result.changed', container: 'side', probe: 'startup', result: 'success' });
    await flush();
    expect(h.syncs.map((x) => x.probes)).toEqual([{}, { startupSucceeded: ['side'] }]);
  });

  it('keeps a liveness failure for the retry when the sync that carried it failed', async () => {
    const h = harness();
    await flush();
    h.syncAnswers.push(failed());
    h.send({ type: 'probe.result.changed', container: 'web', probe: 'liveness', result: 'failure' });
    await flush();
    await h.advance(10_000);
    expect(h.syncs.map((s) => s.probes)).toEqual([{}, { livenessFailed: ['web'] }, { livenessFailed: ['web'] }]);
  });

  it('neither restarts nor readies a container on an unknown probe result', async () => {
    const h = harness();
    await flush();
    h.send({ type: 'probe.result.changed', container: 'web', probe: 'liveness', result: 'unknown' });
    await flush();
    expect(h.syncs).toHaveLength(1);
    h.send({ type: 'probe.result.changed', container: 'web', probe: 'startup', result: 'failure' });
    await flush();
    expect(h.syncs[1]?.probes).toEqual({ startupFailed: ['web'] });
  });

  it.each([
    { name: 'waits until the reported back-off expiry', retryIn: 4_000, wait: 4_000 },
    { name: 'never longer than the resync interval', retryIn: 500_000, wait: 60_000 },
  ])('after a CrashLoopBackOff failure, $name', async ({ retryIn, wait }) => {
    const h = harness();
    h.syncAnswers.push({
      podUid: 'u1', ok: false,
      steps: [{ step: 'startContainer', target: 'web', ok: false, reason: 'CrashLoopBackOff', retryAtMs: T0 + retryIn }],
    });
    await flush();
    expect(h.value()).toBe('backingOff');
    await h.advance(wait - 1);
    expect(h.syncs).toHaveLength(1);
    await h.advance(1);
    expect(h.syncs).toHaveLength(2);
  });

  it('flips Ready on a readiness result without a sync, and reports only when the status changed', async () => {
    const h = harness({ pod: { ...makePod(), spec: { containers: [{ name: 'web', image: 'nginx:1.27', readinessProbe: { exec: { command: ['true'] } } }] } } });
    await flush();
    const ready = () => h.statuses.at(-1)?.conditions?.find((c) => c.type === 'Ready')?.status;
    expect(ready()).toBe('False');
    h.send({ type: 'probe.result.changed', container: 'web', probe: 'readiness', result: 'success' });
    await flush();
    expect(ready()).toBe('True');
    expect(h.syncs).toHaveLength(1);
    h.send({ type: 'pod.sync.requested', reason: 'pleg' });
    await flush();
    expect(h.syncs).toHaveLength(2);
    expect(h.statuses).toHaveLength(2);
    h.send({ type: 'probe.result.changed', container: 'web', probe: 'readiness', result: 'failure' });
    await flush();
    expect(ready()).toBe('False');
    expect(h.statuses).toHaveLength(3);
  });

  it('recomputes Ready at once, without a sync, when a readiness gate\'s condition changes in the API server', async () => {
    const gated = makePod('web', { readinessGates: [{ conditionType: 'example.com/gate' }] });
    const h = harness({ pod: gated });
    await flush();
    const ready = () => h.statuses.at(-1)?.conditions?.find((c) => c.type === 'Ready');
    expect(ready()).toMatchObject({ status: 'False', reason: 'ReadinessGatesNotReady', message: 'corresponding condition of pod readiness gate "example.com/gate" does not exist.' });
    // The API server's pod: the kubelet's last status, with the gate's condition someone else set.
    const withGate = (status: 'True' | 'False'): Pod => ({
      ...gated, status: { ...h.statuses.at(-1)!, conditions: [{ type: 'example.com/gate', status }, ...h.statuses.at(-1)!.conditions!] },
    });
    h.send({ type: 'pod.status.reconciled', pod: withGate('True') });
    await flush();
    expect(ready()).toMatchObject({ status: 'True' });
    expect(h.statuses.at(-1)?.conditions?.find((c) => c.type === 'example.com/gate')).toEqual({ type: 'example.com/gate', status: 'True' });
    const reported = h.statuses.length;
    // The echo of the kubelet's own status changes nothing.
    h.send({ type: 'pod.status.reconciled', pod: withGate('True') });
    await flush();
    expect(h.statuses).toHaveLength(reported);
    h.send({ type: 'pod.status.reconciled', pod: withGate('False') });
    await flush();
    expect(ready()).toMatchObject({ status: 'False', message: 'the status of pod readiness gate "example.com/gate" is not "True", but False' });
    expect(h.syncs).toHaveLength(1);
  });

  it('moves Ready\'s lastTransitionTime at the probe\'s time, not at the last runtime read\'s', async () => {
    const h = harness({ pod: { ...makePod(), spec: { containers: [{ name: 'web', image: 'nginx:1.27', readinessProbe: { exec: { command: ['true'] }, initialDelaySeconds: 15 } }] } } });
    await flush();
    const probedAt = Date.parse('2030-01-01T00:00:15Z');
    h.send({ type: 'probe.result.changed', container: 'web', probe: 'readiness', result: 'success', observedAtMs: probedAt });
    await flush();
    expect(h.statuses.at(-1)?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', lastTransitionTime: '2030-01-01T00:00:15Z' });
  });

  it('stays idle without resyncing once the pod succeeded under OnFailure, until it is killed', async () => {
    const h = harness({ pod: makePod('web', { restartPolicy: 'OnFailure' }) });
    h.state.runtime = runtimeWith('exited0');
    await flush();
    expect(h.statuses.at(-1)?.phase).toBe('Succeeded');
    expect(h.value()).toBe('idle');
    await h.advance(120_000);
    h.send({ type: 'pod.sync.requested', reason: 'pleg' });
    await flush();
    expect(h.syncs).toHaveLength(1);
    h.send({ type: 'pod.kill.requested', reason: 'deleted' });
    await flush();
    expect(h.state.terminated).toEqual({ podUid: 'u1' });
  });

  it('reports Failed under Never after a non-zero exit and stays idle', async () => {
    const h = harness({ pod: makePod('web', { restartPolicy: 'Never' }) });
    h.state.runtime = runtimeWith('exited1');
    await flush();
    expect(h.statuses.at(-1)?.phase).toBe('Failed');
    expect(h.value()).toBe('idle');
    expect(h.state.terminated).toBeNull();
  });

  it('kills the pod when activeDeadlineSeconds passes and reports Failed with DeadlineExceeded, keeping the worker', async () => {
    const h = harness({ pod: makePod('web', { activeDeadlineSeconds: 30 }) });
    await flush();
    expect(h.statuses[0]?.startTime).toBe('2026-11-22T01:00:00Z');
    await h.advance(29_999);
    expect(h.kills).toHaveLength(0);
    h.state.runtime = runtimeWith('exited1');
    await h.advance(1);
    expect(h.kills).toHaveLength(1);
    const last = h.statuses.at(-1);
    expect([last?.phase, last?.reason, last?.message]).toEqual(['Failed', 'DeadlineExceeded', 'Pod was active on the node longer than the specified deadline']);
    expect(h.value()).toBe('idle');
    await h.advance(120_000);
    expect(h.syncs).toHaveLength(1);
    expect(h.kills).toHaveLength(1);
  });

  it('wakes at the active deadline when it comes before the resync, and at the resync when it does not', async () => {
    const h = harness({ pod: makePod('web', { activeDeadlineSeconds: 90 }), resyncIntervalMs: 60_000 });
    await flush();
    expect(h.value()).toBe('idle');
    const timers = trackTimers(h.clock);
    await h.advance(60_000);
    // The resync came first (60 s < 90 s); the worker now waits out the 30 s left of the deadline.
    expect(h.syncs).toHaveLength(2);
    expect(h.kills).toHaveLength(0);
    expect(timers.pending()).toEqual([30_000]);
    await h.advance(30_000);
    expect(h.kills).toHaveLength(1);
    expect(h.syncs).toHaveLength(2);
  });

  it('terminates a pod updated with a deletionTimestamp, with its deletion grace period, and shortens it on a later update', async () => {
    const h = harness();
    await flush();
    const deleting = (grace: number): Pod => ({ ...makePod(), metadata: { ...makePod().metadata, deletionTimestamp: '2026-11-22T01:00:05Z', deletionGracePeriodSeconds: grace } });
    const slow = deferred<PodSyncOutcome>();
    h.killAnswers.push(slow);
    h.send({ type: 'pod.spec.updated', pod: deleting(20) });
    await flush();
    expect(h.value()).toEqual({ terminating: 'killing' });
    h.send({ type: 'pod.spec.updated', pod: deleting(4) });
    await flush();
    expect(h.kills.map((k) => k.gracePeriodSeconds)).toEqual([20, 4]);
    expect(h.syncs).toHaveLength(1);
    expect(h.state.terminated).toEqual({ podUid: 'u1' });
  });

  it('kills a pod deleted while its image pull backs off at once, and ends it Failed with its never-started container terminated', async () => {
    const h = harness();
    h.state.runtime = runtimeWith('none');
    h.syncAnswers.push(failed());
    await flush();
    expect(h.value()).toBe('backingOff');
    expect(h.statuses.at(-1)).toMatchObject({ phase: 'Pending', containerStatuses: [{ state: { waiting: { reason: 'ErrImagePull' } } }] });
    h.send({ type: 'pod.spec.updated', pod: { ...makePod(), metadata: { ...makePod().metadata, deletionTimestamp: '2026-11-22T01:00:30Z', deletionGracePeriodSeconds: 30 } } });
    await flush();
    expect(h.kills.map((k) => k.gracePeriodSeconds)).toEqual([30]);
    expect(h.syncs).toHaveLength(1);
    expect(h.state.terminated).toEqual({ podUid: 'u1' });
    // What lets the status manager finish the deletion: a terminal phase, no container waiting.
    expect(h.statuses.at(-1)).toMatchObject({
      phase: 'Failed',
      containerStatuses: [{ name: 'web', state: { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown' } } }],
    });
  });

  it('ends terminated, not idle, when the pod is deleted while the deadline kill runs', async () => {
    const h = harness({ pod: makePod('web', { activeDeadlineSeconds: 30 }) });
    await flush();
    const slow = deferred<PodSyncOutcome>();
    h.killAnswers.push(slow);
    await h.advance(30_000);
    expect(h.value()).toEqual({ terminating: 'killing' });
    h.send({ type: 'pod.spec.updated', pod: { ...makePod('web', { activeDeadlineSeconds: 30 }), metadata: { ...makePod().metadata, deletionTimestamp: '2026-11-22T01:00:31Z' } } });
    slow.resolve(ok());
    await flush();
    expect(h.state.terminated).toEqual({ podUid: 'u1' });
  });

  it('terminates without syncing a pod that arrives already deleted', async () => {
    const pod: Pod = { ...makePod(), metadata: { ...makePod().metadata, deletionTimestamp: '2026-11-22T01:00:05Z', deletionGracePeriodSeconds: 7 } };
    const h = harness({ pod });
    await flush();
    expect(h.syncs).toHaveLength(0);
    expect(h.kills.map((k) => k.gracePeriodSeconds)).toEqual([7]);
    expect(h.state.terminated).toEqual({ podUid: 'u1' });
  });

  it('kills a runtime-only pod at once with its request, and terminates without a status read or report', async () => {
    const h = harness({ pod: { metadata: { uid: 'u1', name: '' }, spec: { containers: [] } }, runtimeOnly: { reason: 'orphaned', gracePeriodSeconds: 1 } });
    await flush();
    expect(h.syncs).toHaveLength(0);
    expect(h.kills).toEqual([{ pod: { metadata: { uid: 'u1', name: '' }, spec: { containers: [] } }, gracePeriodSeconds: 1 }]);
    expect(h.statusReads).toEqual([]);
    expect(h.statuses).toEqual([]);
    expect(h.state.terminated).toEqual({ podUid: 'u1' });
  });

  it('retries the kill of a runtime-only pod until it succeeds', async () => {
    const h = harness({ pod: { metadata: { uid: 'u1', name: '' }, spec: { containers: [] } }, runtimeOnly: { reason: 'orphaned', gracePeriodSeconds: 1 } });
    h.killAnswers.push(new Error('runtime unavailable'));
    await flush();
    expect(h.value()).toEqual({ terminating: 'retrying' });
    await h.advance(10_000);
    expect(h.kills).toHaveLength(2);
    expect(h.statusReads).toEqual([]);
    expect(h.state.terminated).toEqual({ podUid: 'u1' });
  });

  it('ignores events once terminated, as a final state would, until its parent stops it', async () => {
    const h = harness();
    await flush();
    const seen: { value: unknown; status: string }[] = [];
    h.workerRef()?.subscribe((snap: { value: unknown; status: string }) => seen.push({ value: snap.value, status: snap.status }));
    h.send({ type: 'pod.kill.requested', reason: 'deleted' });
    await flush();
    expect(seen.at(-1)).toEqual({ value: 'terminated', status: 'active' });
    expect(h.state.terminated).toEqual({ podUid: 'u1' });
    const before = { syncs: h.syncs.length, kills: h.kills.length };
    const statusesBefore = h.statuses.length;
    h.send({ type: 'pod.spec.updated', pod: makePod('x') });
    h.send({ type: 'probe.result.changed', container: 'web', probe: 'readiness', result: 'success' } as PodWorkerEvent);
    await h.advance(120_000);
    expect({ syncs: h.syncs.length, kills: h.kills.length }).toEqual(before);
    expect(h.statuses).toHaveLength(statusesBefore);
    expect(h.context().pod.metadata.name).not.toBe('x');
  });

  it('never loses a kill requested during a status read', async () => {
    const h = harness();
    await flush();
    h.send({ type: 'pod.sync.requested', reason: 'pleg' });
    h.send({ type: 'pod.kill.requested', reason: 'deleted' });
    await flush();
    expect(h.kills).toHaveLength(1);
    expect(h.state.terminated).toEqual({ podUid: 'u1' });
  });
});

describe('podWorkerMachine as a graph', () => {
  // The machine logic alone, traversed with the answers its effects and its parent can give.
  const observation: PodStatusObservation = { runtimeStatus: runtimeWith('running'), observedAtMs: T0 };
  const events = [
    { type: 'xstate.done.actor.syncPod', output: ok() },
    { type: 'xstate.done.actor.syncPod', output: failed() },
    { type: 'xstate.error.actor.syncPod', error: new Error('x') },
    { type: 'xstate.done.actor.getPodStatus', output: observation },
    { type: 'xstate.done.actor.killPod', output: ok() },
    { type: 'xstate.done.actor.killPod', output: { ...failed(), steps: [{ step: 'killContainer', target: 'web', ok: false }] } },
    { type: 'pod.kill.requested', reason: 'deleted' },
    { type: 'pod.spec.updated', pod: makePod('web2') },
  ];
  const paths = getShortestPaths(podWorkerMachine.provide({ actions: { notifyParent: () => {}, reportTerminated: () => {} } }), {
    events: events as never,
    input: { pod: makePod() },
    serializeState: (s: { value: unknown; context: PodWorkerContext }) => JSON.stringify([s.value, s.context.killRequest !== null, s.context.syncFailed, s.context.pendingSync]),
  } as never);
  const values = new Set(paths.map((p) => JSON.stringify(p.state.value)));

  it('reaches every state a pod worker can rest in', () => {
    for (const v of [{ syncing: 'runtime' }, 'refreshingStatus', 'idle', 'backingOff', { terminating: 'killing' }, { terminating: 'retrying' }, { terminating: 'recordingStatus' }, 'terminated']) {
      expect(values.has(JSON.stringify(v))).toBe(true);
    }
  });

  it('reaches terminated only through a kill request and a successful kill', () => {
    for (const path of paths.filter((p) => p.state.value === 'terminated')) {
      const types: string[] = path.steps.map((s) => s.event.type);
      expect(types).toContain('pod.kill.requested');
      const kills = path.steps.filter((s) => (s.event.type as string) === 'xstate.done.actor.killPod');
      expect((kills.at(-1)?.event as { output?: PodSyncOutcome } | undefined)?.output?.ok).toBe(true);
    }
  });
});

describe('podWorkerMachine waiting for volumes (WaitForAttachAndMount)', () => {
  /** A pod with a ConfigMap and an emptyDir volume, of which its container mounts `mounted`. */
  function podWithVolumes(mounted: string[] = ['cfg', 'cache']): Pod {
    const pod = makePod('web', { volumes: [{ name: 'cfg', configMap: { name: 'app-config' } }, { name: 'cache', emptyDir: {} }] });
    pod.spec.containers[0]!.volumeMounts = mounted.map((name) => ({ name, mountPath: `/mnt/${name}` }));
    return pod;
  }
  const changed = (...unmounted: string[]): PodWorkerEvent => ({ type: 'pod.volumes.changed', unmounted });
  const requestTypes = (h: ReturnType<typeof harness>) => h.volumeRequests.map((r) => r.type);

  it('syncs at once and asks no volume manager for anything without waitForVolumes', async () => {
    const h = harness({ pod: podWithVolumes() }, { volumeManager: true });
    await flush();
    expect(h.syncs).toHaveLength(1);
    expect(h.volumeRequests).toEqual([]);
  });

  it('fails, naming the volume manager, when it would wait for volumes no volume manager mounts', async () => {
    const h = harness({ pod: podWithVolumes(), waitForVolumes: true });
    await flush();
    expect(h.state.crashed?.message).toBe("no actor is registered as 'volumeManager' to receive 'volumes.pod.sync'");
    expect(h.syncs).toHaveLength(0);
  });

  it('asks the volume manager and holds the first sync until it says no volume is left unmounted', async () => {
    const h = harness({ pod: podWithVolumes(), waitForVolumes: true }, { volumeManager: true });
    await flush();
    expect(h.value()).toEqual({ syncing: 'waitingForVolumes' });
    expect(h.volumeRequests).toEqual([{ type: 'volumes.pod.sync', pod: podWithVolumes() }]);
    expect(h.syncs).toHaveLength(0);
    h.send(changed('cache', 'cfg'));
    h.send(changed('cfg'));
    await flush();
    expect(h.syncs).toHaveLength(0);
    expect(h.value()).toEqual({ syncing: 'waitingForVolumes' });
    h.send(changed());
    await flush();
    expect(h.syncs).toHaveLength(1);
    expect(h.value()).toBe('idle');
  });

  it('asks the volume manager at every sync, whatever asked for it: the resync, the PLEG, a spec update', async () => {
    const h = harness({ pod: podWithVolumes(), waitForVolumes: true }, { volumeManager: true });
    await flush();
    h.send(changed());
    await flush();
    await h.advance(60_000);
    expect(h.syncs).toHaveLength(2);
    h.send({ type: 'pod.sync.requested', reason: 'pleg' });
    await flush();
    expect(h.syncs).toHaveLength(3);
    const updated = podWithVolumes();
    updated.metadata.labels = { rev: '2' };
    h.send({ type: 'pod.spec.updated', pod: updated });
    await flush();
    expect(h.syncs).toHaveLength(4);
    expect(h.volumeRequests).toEqual([...Array<unknown>(3).fill({ type: 'volumes.pod.sync', pod: podWithVolumes() }), { type: 'volumes.pod.sync', pod: updated }]);
    expect(h.value()).toBe('idle');
  });

  it('arms no volume timeout for a sync whose volumes are all mounted, and one timer while idle', async () => {
    const h = harness({ pod: podWithVolumes(), waitForVolumes: true }, { volumeManager: true });
    await flush();
    expect(h.value()).toEqual({ syncing: 'waitingForVolumes' });
    const timers = trackTimers(h.clock);
    h.send(changed());
    await flush();
    expect(h.value()).toBe('idle');
    // Idle without an active deadline: the resync alone.
    expect(timers.armed).toEqual([60_000]);
    h.send({ type: 'pod.sync.requested', reason: 'pleg' });
    await flush();
    expect(h.syncs).toHaveLength(2);
    expect(timers.armed).toEqual([60_000, 60_000]);
    expect(timers.pending()).toEqual([60_000]);
  });

  it('does not ask again for a PLEG sync whose events the last view shows, once every volume is mounted', async () => {
    const h = harness({ pod: podWithVolumes(), waitForVolumes: true }, { volumeManager: true });
    await flush();
    // Not mounted yet: even a sync for events the view shows waits for the volumes, so it asks.
    const started: PodWorkerEvent = { type: 'pod.sync.requested', reason: 'pleg', runtimeEvents: [{ type: 'ContainerStarted', containerId: 'c1' }] };
    h.send(changed());
    await flush();
    expect(h.volumeRequests).toHaveLength(1);
    h.send(started);
    await flush();
    expect(h.syncs).toHaveLength(2);
    expect(h.syncs[1]?.podStatus).toEqual(runtimeWith('running'));
    expect(h.volumeRequests).toHaveLength(1);
    // News (the container died): the sync reads the runtime and asks for the volumes again.
    h.send({ type: 'pod.sync.requested', reason: 'pleg', runtimeEvents: [{ type: 'ContainerDied', containerId: 'c1' }] });
    await flush();
    expect(h.syncs).toHaveLength(3);
    expect(h.volumeRequests).toHaveLength(2);
  });

  it('asks the volume manager at each sync of a container in CrashLoopBackOff, whose worker never idles for a resync', async () => {
    const h = harness({ pod: podWithVolumes(), waitForVolumes: true }, { volumeManager: true });
    const backOff = (retryIn: number): PodSyncOutcome => ({
      podUid: 'u1', ok: false,
      steps: [{ step: 'startContainer', target: 'web', ok: false, reason: 'CrashLoopBackOff', retryAtMs: h.clock.now() + retryIn }],
    });
    h.syncAnswers.push(backOff(10_000));
    await flush();
    h.send(changed());
    await flush();
    expect(h.value()).toBe('backingOff');
    h.syncAnswers.push(backOff(20_000));
    await h.advance(10_000);
    expect(h.value()).toBe('backingOff');
    h.syncAnswers.push(backOff(40_000));
    await h.advance(20_000);
    expect(h.syncs).toHaveLength(3);
    expect(h.volumeRequests).toHaveLength(3);
    expect(h.volumeRequests.every((r) => r.type === 'volumes.pod.sync')).toBe(true);
  });

  it.each([
    { name: 'the volumes the manager last named', answer: ['cfg'], listed: '[cfg]' },
    { name: 'every mounted volume, sorted, when the manager never answered', answer: null, listed: '[cache cfg]' },
  ])('fails the sync after 2 minutes with Go\'s error listing $name, reads the status, backs off and waits again', async ({ answer, listed }) => {
    const h = harness({ pod: podWithVolumes(), waitForVolumes: true }, { volumeManager: true });
    h.state.runtime = runtimeWith('none');
    await flush();
    if (answer) h.send(changed(...answer));
    await h.advance(119_999);
    expect(h.value()).toEqual({ syncing: 'waitingForVolumes' });
    expect(h.context().lastSyncError).toBeNull();
    expect(h.statusReads).toHaveLength(0);
    await h.advance(1);
    const message = `unmounted volumes=${listed}, unattached volumes=${listed}, failed to process volumes=[]: timed out waiting for the condition`;
    expect(h.context().lastSyncError).toEqual({ code: 'KLT_ERR_VOLUME_MOUNT', message, retryable: true });
    expect(h.volumeRequests.at(-1)).toEqual({ type: 'volumes.pod.waitTimedOut', podUid: 'u1', message });
    expect(h.statusReads).toEqual([{ podUid: 'u1' }]);
    expect(h.statuses.at(-1)?.phase).toBe('Pending');
    expect(h.value()).toBe('backingOff');
    expect(h.syncs).toHaveLength(0);
    await h.advance(10_000);
    expect(h.value()).toEqual({ syncing: 'waitingForVolumes' });
    expect(requestTypes(h)).toEqual(['volumes.pod.sync', 'volumes.pod.waitTimedOut', 'volumes.pod.sync']);
    h.send(changed());
    await flush();
    expect(h.syncs).toHaveLength(1);
    expect(h.context().lastSyncError).toBeNull();
  });

  it('fails the sync at once with the volumes the populator could not process (Go pops the pod\'s errors), backs off, and runs once they mount', async () => {
    const h = harness({ pod: podWithVolumes(), waitForVolumes: true }, { volumeManager: true });
    h.state.runtime = runtimeWith('none');
    await flush();
    const notBound = 'error processing PVC ns/cfg: PVC is not bound';
    h.send({ type: 'pod.volumes.changed', unmounted: ['cfg'], failedToProcess: [{ volumeName: 'cfg', message: notBound }] });
    await flush();
    const message = `unmounted volumes=[cfg], unattached volumes=[cache cfg], failed to process volumes=[cfg]: ${notBound}`;
    expect(h.context().lastSyncError).toEqual({ code: 'KLT_ERR_VOLUME_MOUNT', message, retryable: true });
    expect(h.volumeRequests.at(-1)).toEqual({ type: 'volumes.pod.waitTimedOut', podUid: 'u1', message });
    expect(h.context().volumeProcessingErrors).toEqual([]);
    expect(h.value()).toBe('backingOff');
    await h.advance(10_000);
    expect(h.value()).toEqual({ syncing: 'waitingForVolumes' });
    h.send(changed());
    await flush();
    expect(h.syncs).toHaveLength(1);
    expect(h.context().lastSyncError).toBeNull();
  });

  it.each([
    { name: 'pod.kill.requested', event: { type: 'pod.kill.requested', reason: 'deleted', gracePeriodSeconds: 3 } as PodWorkerEvent, grace: 3 },
    {
      name: 'an update with a deletionTimestamp',
      event: { type: 'pod.spec.updated', pod: { ...podWithVolumes(), metadata: { ...podWithVolumes().metadata, deletionTimestamp: '2026-11-22T01:00:05Z', deletionGracePeriodSeconds: 5 } } } as PodWorkerEvent,
      grace: 5,
    },
  ])('terminates without syncing when $name arrives while waiting for the volumes', async ({ event, grace }) => {
    const h = harness({ pod: podWithVolumes(), waitForVolumes: true }, { volumeManager: true });
    await flush();
    h.send(event);
    await flush();
    expect(h.syncs).toHaveLength(0);
    expect(h.kills.map((k) => k.gracePeriodSeconds)).toEqual([grace]);
    expect(h.state.terminated).toEqual({ podUid: 'u1' });
    await h.advance(120_000);
    expect(requestTypes(h)).toEqual(['volumes.pod.sync']);
  });

  it('syncs the latest spec when the pod is updated while waiting for the volumes', async () => {
    const h = harness({ pod: podWithVolumes(), waitForVolumes: true }, { volumeManager: true });
    await flush();
    const updated = podWithVolumes();
    updated.spec.containers[0]!.image = 'nginx:1.28';
    h.send({ type: 'pod.spec.updated', pod: updated });
    await flush();
    expect(h.value()).toEqual({ syncing: 'waitingForVolumes' });
    h.send(changed());
    await flush();
    expect(h.syncs[0]?.pod.spec.containers[0]?.image).toBe('nginx:1.28');
  });

  it('does not wait for a pod whose containers mount none of its volumes', async () => {
    const h = harness({ pod: podWithVolumes([]), waitForVolumes: true }, { volumeManager: true });
    await flush();
    expect(h.syncs).toHaveLength(1);
    expect(h.volumeRequests).toEqual([]);
    expect(h.value()).toBe('idle');
  });
});
