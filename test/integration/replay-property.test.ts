/**
 * The replay gate's property (issue 13 item 7): whatever happens to a pod worker — spec updates,
 * kills with any grace period, sync requests, probe results, effects that answer late, fail, throw or
 * find the pod in any runtime state, a clock that jumps by any amount — the run it journals replays
 * identically. 1,000 runs under the simulated clock, each drawn from its own seed; a divergence
 * names the seed, so `REPLAY_PROPERTY_SEED=<seed>` runs that one alone.
 */
import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise, SimulatedClock, type AnyActorRef, type AnyStateMachine } from 'xstate';
import { createInspectionTap } from '../../src/actors/journal/inspection-tap.js';
import { inertActors, replay } from '../../src/actors/journal/replay.js';
import type { JournalRecord } from '../../src/domain/journal/record.js';
import type { PodSyncOutcome } from '../../src/domain/pod/sync-outcome.js';
import type { Pod } from '../../src/domain/pod/types.js';
import type { RuntimePodStatus } from '../../src/domain/runtime/pod-status.js';
import {
  podWorkerMachine,
  POD_WORKER_EFFECTS,
  type GetPodStatusInput,
  type KillPodInput,
  type PodStatusObservation,
  type PodWorkerEvent,
  type SyncPodInput,
} from '../../src/machines/pod-worker.machine.js';
import { settle } from '../support/settle.js';

const BASE_SEED = 20_261_122;
const RUNS = 1_000;
const STEPS = 25; // odd: the checkpoint falls between two steps
const T0 = Date.UTC(2026, 10, 22, 1, 0, 0);

/** mulberry32: a small, fixed PRNG, so a seed names a run on any machine. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick };
}
type Rng = ReturnType<typeof prng>;

const ns = (ms: number) => String(BigInt(ms) * 1_000_000n);

function randomPod(rng: Rng): Pod {
  const containers = Array.from({ length: 1 + rng.int(2) }, (_, i) => ({ name: `c${i}`, image: rng.pick(['busybox:1.0', 'busybox:1.1']) }));
  return {
    metadata: { name: 'p', namespace: 'ns', uid: 'u1', ...(rng.int(6) === 0 ? { deletionTimestamp: new Date(T0).toISOString(), deletionGracePeriodSeconds: rng.int(5) } : {}) },
    spec: { containers, terminationGracePeriodSeconds: rng.int(30), ...(rng.int(5) === 0 ? { activeDeadlineSeconds: 1 + rng.int(120) } : {}) },
  };
}

function randomRuntime(rng: Rng, atMs: number): RuntimePodStatus {
  const state = rng.pick(['none', 'running', 'exited0', 'exited1'] as const);
  if (state === 'none') return { uid: 'u1', name: 'p', namespace: 'ns', ips: [], sandboxes: [], containers: [] };
  const running = state === 'running';
  return {
    uid: 'u1', name: 'p', namespace: 'ns', ips: running ? ['10.0.0.5'] : [],
    sandboxes: [{ id: 'sb', attempt: 0, ready: running, createdAt: ns(T0), ips: ['10.0.0.5'], hasNetworkStatus: true }],
    containers: [{
      id: 'c1', name: 'c0', state: running ? 'running' : 'exited', createdAt: ns(T0), startedAt: ns(T0), finishedAt: running ? '0' : ns(atMs),
      exitCode: state === 'exited1' ? 1 : 0, reason: '', message: '', image: 'busybox:1.0', imageRef: 'sha256:1', hash: 1, restartCount: rng.int(4), sandboxId: 'sb',
    }],
  };
}

function randomOutcome(rng: Rng, clock: SimulatedClock): PodSyncOutcome {
  switch (rng.int(3)) {
    case 0: return { podUid: 'u1', ok: true, steps: [] };
    case 1: return { podUid: 'u1', ok: true, steps: [], podStatus: { runtimeStatus: randomRuntime(rng, clock.now()), observedAtMs: clock.now() } };
    default: return {
      podUid: 'u1', ok: false,
      steps: [{ step: 'startContainer', target: 'c0', ok: false, reason: 'CrashLoopBackOff', error: { code: 'KLT_ERR_CONTAINER_BACKOFF', message: 'back-off', retryable: true }, retryAtMs: clock.now() + rng.int(20_000) }],
    };
  }
}

/** A parent that invokes one pod worker (as the syncLoop does) and takes its status reports. */
function parentOf(worker: AnyStateMachine, input: object): AnyStateMachine {
  return createMachine({
    id: 'parent',
    invoke: { id: 'pod:u1', systemId: 'pod:u1', src: worker, input },
    on: { 'pod.status.updated': {} },
  });
}

/** One run from `seed`: its journal. Effects answer after a drawn delay on the simulated clock. */
async function recordRun(seed: number): Promise<{ records: JournalRecord[]; input: object }> {
  const rng = prng(seed);
  const clock = new SimulatedClock();
  clock.set(T0);
  const records: JournalRecord[] = [];
  const tap = createInspectionTap({ clock, onRecord: (r) => records.push(r) });
  const later = <T>(answer: () => T): Promise<T> =>
    new Promise((resolve, reject) => {
      const fail = rng.int(8) === 0;
      clock.setTimeout(() => (fail ? reject(new Error('runtime unavailable')) : resolve(answer())), rng.pick([0, 5, 100, 2_000, 15_000]));
    });
  const worker = podWorkerMachine.provide({
    actors: {
      syncPod: fromPromise<PodSyncOutcome, SyncPodInput>(() => later(() => randomOutcome(rng, clock))),
      killPod: fromPromise<PodSyncOutcome, KillPodInput>(() => later(() => ({ podUid: 'u1', ok: rng.int(4) > 0, steps: [] }))),
      getPodStatus: fromPromise<PodStatusObservation, GetPodStatusInput>(() => later(() => ({ runtimeStatus: randomRuntime(rng, clock.now()), observedAtMs: clock.now() }))),
    },
  });
  const input = { pod: randomPod(rng), resyncIntervalMs: rng.pick([10_000, 60_000]), resyncJitterFraction: rng.next(), backOffPeriodMs: rng.pick([1_000, 10_000]) };
  const root = createActor(parentOf(worker, input), { clock, inspect: tap.inspect, systemId: 'parent' });
  root.start();
  for (let step = 0; step < STEPS; step++) {
    // Halfway, between two inputs as a rotation's is: a checkpoint to replay from.
    if (step === STEPS / 2 - 0.5) tap.checkpoint(root);
    const ref = root.system.get('pod:u1') as AnyActorRef | undefined;
    if (rng.int(2) === 0 || !ref) clock.increment(rng.pick([1, 50, 1_000, 9_000, 30_000, 70_000]));
    else ref.send(randomEvent(rng, clock));
    await settle(3);
  }
  root.stop();
  return { records, input };
}

function randomEvent(rng: Rng, clock: SimulatedClock): PodWorkerEvent {
  switch (rng.int(5)) {
    case 0: return { type: 'pod.spec.updated', pod: randomPod(rng) };
    case 1: return { type: 'pod.kill.requested', reason: 'deleted', ...(rng.int(2) === 0 ? { gracePeriodSeconds: rng.int(10) } : {}) };
    case 2: return { type: 'pod.sync.requested', reason: 'pleg' };
    case 3: return { type: 'pod.runtime.unseen' };
    default: return { type: 'probe.result.changed', container: 'c0', probe: rng.pick(['liveness', 'readiness', 'startup'] as const), result: rng.pick(['success', 'failure']), observedAtMs: clock.now() };
  }
}

describe('replay, property', () => {
  const only = process.env.REPLAY_PROPERTY_SEED;
  const seeds = only ? [Number(only)] : Array.from({ length: RUNS }, (_, i) => BASE_SEED + i);

  it(`replays ${seeds.length} randomized pod worker runs identically (seeds ${seeds[0]}…${seeds.at(-1)})`, async () => {
    const inert = podWorkerMachine.provide({ actors: inertActors(POD_WORKER_EFFECTS) as never });
    const divergent: string[] = [];
    let records = 0;
    for (const seed of seeds) {
      const run = await recordRun(seed);
      records += run.records.length;
      const result = replay(run.records, { machine: parentOf(inert, run.input), rootSystemId: 'parent' });
      if (!result.ok) divergent.push(`seed ${seed}: seq ${result.divergence.seq} on ${result.divergence.actor}, ${JSON.stringify(result.divergence.difference ?? { expected: result.divergence.expected, actual: result.divergence.actual })}`);
      // As from a rotated log whose first segments are gone: the records before the checkpoint dropped.
      const at = run.records.findIndex((r) => r.type === 'checkpoint');
      const tail = run.records.slice(at);
      const fromCheckpoint = replay(tail, { machine: parentOf(inert, run.input), rootSystemId: 'parent', from: tail[0]! });
      if (!fromCheckpoint.ok) divergent.push(`seed ${seed} from checkpoint seq ${tail[0]!.seq}: seq ${fromCheckpoint.divergence.seq} on ${fromCheckpoint.divergence.actor}, ${JSON.stringify(fromCheckpoint.divergence.difference ?? { expected: fromCheckpoint.divergence.expected, actual: fromCheckpoint.divergence.actual })}`);
    }
    expect(divergent).toEqual([]);
    // The runs exercised something: on average a few dozen records each.
    expect(records / seeds.length).toBeGreaterThan(20);
  }, 300_000);

  it('diverges from a checkpoint too: a changed resync delay after the restore is caught in every run that schedules one', async () => {
    const inert = podWorkerMachine.provide({ actors: inertActors(POD_WORKER_EFFECTS) as never });
    const changed = inert.provide({ delays: { resyncOrDeadline: 1 } });
    let tried = 0;
    for (const seed of seeds.slice(0, 100)) {
      const run = await recordRun(seed);
      const tail = run.records.slice(run.records.findIndex((r) => r.type === 'checkpoint'));
      const schedulesResync = tail.some((r) => r.type === 'action' && r.name === 'schedule' && JSON.stringify(r.payload).includes('xstate.after.resyncOrDeadline'));
      if (!schedulesResync) continue;
      tried += 1;
      const result = replay(tail, { machine: parentOf(changed, run.input), rootSystemId: 'parent', from: tail[0]! });
      expect(result.ok, `seed ${seed}: the changed delay went unseen`).toBe(false);
    }
    expect(tried).toBeGreaterThan(0);
  }, 120_000);
});
