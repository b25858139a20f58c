import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise, SimulatedClock, type AnyActorRef } from 'xstate';
import type { EvictionCandidate } from '../../src/domain/eviction/candidates.js';
import type { Observations } from '../../src/domain/eviction/observations.js';
import type { Threshold } from '../../src/domain/eviction/thresholds.js';
import type { LocalStorageSubject } from '../../src/domain/eviction/local-storage.js';
import {
  evictionManagerMachine,
  type EvictRequestedEvent,
  type ListCandidatesOutput,
  type ListLocalStorageOutput,
  type ObserveOutput,
  type PodEvictedEmitted,
  type PressureChangedEvent,
  type ReclaimInput,
  type ReclaimOutput,
  type ThresholdMetEmitted,
} from '../../src/machines/eviction-manager.machine.js';
import { settle } from '../support/settle.js';
import { candidate, hardMemory, Mi, usingMemory } from '../domain/eviction/fixtures.js';

const diskHard: Threshold = { signal: 'nodefs.available', kind: 'hard', value: { quantity: 100, text: '100' }, gracePeriodMs: 0 };

interface World {
  /** What the next reads see: memory and nodefs available (out of 1000 Mi and 1000). */
  memoryAvailable: number;
  nodefsAvailable: number;
  /** What GC frees on nodefs. */
  gcFrees: number;
  candidates: EvictionCandidate[];
  /** What the syncLoop answers for a kill (default: evicted). */
  killSucceeds?: boolean;
  /** false: the syncLoop never answers. */
  answers?: boolean;
  /** The pods with a local storage limit; set, the manager runs with localStorageCapacityIsolation. */
  localStorage?: LocalStorageSubject[];
}

function observationsAt(world: World, nowMs: number): Observations {
  const time = new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    'memory.available': { available: world.memoryAvailable, capacity: 1000 * Mi, time },
    'nodefs.available': { available: world.nodefsAvailable, capacity: 1000, time },
  };
}

function start(thresholds: Threshold[], world: World, transitionMs = 30_000, runtimeReady = true) {
  const clock = new SimulatedClock();
  const calls = { observe: 0, listed: 0, listedLocalStorage: 0, announce: [] as string[], reclaim: [] as ReclaimInput[], evict: [] as (EvictRequestedEvent & { atMs: number })[], evictedEvents: [] as PodEvictedEmitted[] };
  const pressure: string[][] = [];
  const machine = evictionManagerMachine.provide({
    actors: {
      observe: fromPromise<ObserveOutput, Record<string, never>>(async () => {
        calls.observe++;
        return { observations: observationsAt(world, clock.now()), dedicatedImageFs: false, observedAtMs: clock.now() };
      }),
      listCandidates: fromPromise<ListCandidatesOutput, Record<string, never>>(async () => {
        calls.listed++;
        return world.candidates;
      }),
      listLocalStorage: fromPromise<ListLocalStorageOutput, Record<string, never>>(async () => {
        calls.listedLocalStorage++;
        return world.localStorage ?? [];
      }),
      reclaimNodeLevel: fromPromise<ReclaimOutput, ReclaimInput>(async ({ input }) => {
        calls.reclaim.push(input);
        world.nodefsAvailable += world.gcFrees;
        return { observations: observationsAt(world, clock.now()) };
      }),
    },
  });
  // The syncLoop's side: records pressure, kills the pod at once and answers (a nodeStatus would get the same pressure events).
  const syncLoop = fromCallback<EvictRequestedEvent | PressureChangedEvent>(({ receive, system }) => {
    receive((event) => {
      if (event.type === 'node.pressure.changed') {
        pressure.push(event.conditions);
        return;
      }
      calls.evict.push({ ...event, atMs: clock.now() });
      world.candidates = world.candidates.filter((c) => c.uid !== event.podUid);
      if (world.localStorage) world.localStorage = world.localStorage.filter((s) => s.uid !== event.podUid);
      if (world.answers === false) return;
      queueMicrotask(() => (system.get('evictionManager') as AnyActorRef).send({ type: 'pod.eviction.finished', podUid: event.podUid, evicted: world.killSucceeds ?? true }));
    });
  });
  const parent = createMachine({
    invoke: [
      { id: 'evictionManager', systemId: 'evictionManager', src: machine, input: { nodeName: 'n1', thresholds, pressureTransitionPeriodMs: transitionMs, maxPodGracePeriodSeconds: 0, localStorageCapacityIsolation: world.localStorage !== undefined } },
      { id: 'syncLoop', systemId: 'syncLoop', src: syncLoop },
    ],
  });
  const actor = createActor(parent, { clock });
  actor.start();
  const manager = () => actor.getSnapshot().children.evictionManager!;
  manager().on('eviction.threshold.met', (e: ThresholdMetEmitted) => calls.announce.push(`${e.reason}: ${e.message}`));
  manager().on('pod.evicted', (e: PodEvictedEmitted) => calls.evictedEvents.push(e));
  if (runtimeReady) manager().send({ type: 'runtime.up' });
  const tick = async (ms: number) => {
    clock.increment(ms);
    await settle();
  };
  return { calls, pressure, manager, tick };
}

const stateOf = (m: { getSnapshot(): { value: unknown } }) => m.getSnapshot().value;

describe('evictionManagerMachine', () => {
  it('waits for the runtime machine\'s first RuntimeReady answer (runtime.up) before its first observation', async () => {
    const world = { memoryAvailable: 900 * Mi, nodefsAvailable: 900, gcFrees: 0, candidates: [] };
    const { calls, manager, tick } = start([hardMemory(100 * Mi)], world, 30_000, false);
    await tick(60_000);
    expect(calls.observe).toBe(0);
    expect(stateOf(manager())).toBe('waitingForRuntime');
    manager().send({ type: 'runtime.up' });
    await settle();
    expect(calls.observe).toBe(1);
  });

  it('waits for the next period when the kill did not evict the pod', async () => {
    const world = { memoryAvailable: 50 * Mi, nodefsAvailable: 900, gcFrees: 0, candidates: [usingMemory('p', 10 * Mi)], killSucceeds: false };
    const { calls, manager } = start([hardMemory(100 * Mi)], world);
    await settle();
    expect(calls.evict).toHaveLength(1);
    expect(calls.observe).toBe(1);
    expect(stateOf(manager())).toBe('waiting');
  });

  it('gives up waiting for the eviction after podCleanupTimeout (30 s)', async () => {
    const world = { memoryAvailable: 50 * Mi, nodefsAvailable: 900, gcFrees: 0, candidates: [usingMemory('p', 10 * Mi)], answers: false };
    const { manager, tick } = start([hardMemory(100 * Mi)], world);
    await settle();
    await tick(29_999);
    expect(stateOf(manager())).toBe('evicting');
    await tick(1);
    expect(stateOf(manager())).toBe('waiting');
  });

  it('observes at once and then every 10 s while nothing is starved', async () => {
    const world = { memoryAvailable: 900 * Mi, nodefsAvailable: 900, gcFrees: 0, candidates: [] };
    const { calls, manager, tick, pressure } = start([hardMemory(100 * Mi)], world);
    await settle();
    expect(calls.observe).toBe(1);
    expect(stateOf(manager())).toBe('waiting');
    await tick(9_999);
    expect(calls.observe).toBe(1);
    await tick(1);
    expect(calls.observe).toBe(2);
    expect(pressure).toEqual([]);
    // Nothing starved: the pods are never asked for.
    expect(calls.listed).toBe(0);
  });

  it('with localStorageCapacityIsolation, evicts a pod over its emptyDir sizeLimit before weighing any threshold: grace 1 s, Go\'s message, no DisruptionTarget, no EvictionThresholdMet', async () => {
    const over: LocalStorageSubject = {
      uid: 'uid-full', namespace: 'default', name: 'full', critical: false,
      emptyDirLimits: [{ volume: 'scratch', bytes: Mi, text: '1Mi' }], containerLimits: [],
      usage: { volumes: { scratch: 4 * Mi }, podBytes: 4 * Mi, containers: [{ name: 'c', logsBytes: 0, rootfsBytes: 0 }] },
    };
    const world: World = { memoryAvailable: 50 * Mi, nodefsAvailable: 900, gcFrees: 0, candidates: [usingMemory('big', 40 * Mi)], localStorage: [over] };
    const { calls, tick } = start([hardMemory(100 * Mi)], world);
    await settle();
    expect(calls.evict.map((e) => [e.podUid, e.gracePeriodSeconds, e.reason, e.message])).toEqual([
      ['uid-full', 1, 'Evicted', 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". '],
    ]);
    expect(calls.evict[0]!.condition).toBeUndefined();
    expect(calls.evictedEvents).toEqual([{ type: 'pod.evicted', pod: { namespace: 'default', name: 'full', uid: 'uid-full' }, reason: 'Evicted', message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ', annotations: {} }]);
    // That cycle weighed no threshold; the next starts at once, checks local storage again, and
    // (its reading no fresher) leaves the memory threshold to a later one.
    expect(calls.announce).toEqual([]);
    expect(calls.listedLocalStorage).toBe(2);
    expect(calls.listed).toBe(0);
    await tick(10_000);
    expect(calls.announce).toEqual(['EvictionThresholdMet: Attempting to reclaim memory']);
    expect(calls.evict.map((e) => e.podUid)).toEqual(['uid-full', 'uid-big']);
    expect(calls.evict[1]!.condition).toMatchObject({ type: 'DisruptionTarget' });
    expect(calls.listedLocalStorage).toBe(4);
  });

  it('without localStorageCapacityIsolation never asks for the pods\' local storage', async () => {
    const world: World = { memoryAvailable: 900 * Mi, nodefsAvailable: 900, gcFrees: 0, candidates: [] };
    const { calls, tick } = start([hardMemory(100 * Mi)], world);
    await settle();
    await tick(10_000);
    await tick(10_000);
    expect(calls.observe).toBe(3);
    expect(calls.listedLocalStorage).toBe(0);
  });

  it('reports MemoryPressure and evicts one pod per cycle, the BestEffort one using most first', async () => {
    const world = { memoryAvailable: 50 * Mi, nodefsAvailable: 900, gcFrees: 0, candidates: [usingMemory('small', 1 * Mi), usingMemory('big', 40 * Mi), candidate('critical', { critical: true })] };
    const { calls, pressure, tick } = start([hardMemory(100 * Mi)], world);
    await settle();
    expect(pressure).toEqual([['MemoryPressure']]);
    expect(calls.announce).toEqual(['EvictionThresholdMet: Attempting to reclaim memory']);
    expect(calls.evictedEvents[0]).toMatchObject({ reason: 'Evicted', pod: { name: 'big', uid: 'uid-big' }, annotations: { starved_resource: 'memory', offending_containers: 'c' } });
    expect(calls.evict.map((e) => [e.podUid, e.gracePeriodSeconds, e.reason])).toEqual([['uid-big', 1, 'Evicted']]);
    expect(calls.evict[0]!.condition).toEqual({ type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet', message: calls.evict[0]!.message });
    expect(calls.evict[0]!.message).toMatch(/^The node was low on resource: memory\. Threshold quantity: 100Mi, available: 50Mi\. Container c was using 40Mi/);
    // The next cycle starts at once after an eviction, but the same reading is not acted on twice.
    expect(calls.observe).toBe(2);
    await tick(1_000);
    await tick(9_000);
    expect(calls.evict.map((e) => e.podUid)).toEqual(['uid-big', 'uid-small']);
    // Only the critical pod is left: nothing more is evicted.
    await tick(10_000);
    await tick(10_000);
    expect(calls.evict).toHaveLength(2);
  });

  it('holds the condition for the transition period after the threshold clears', async () => {
    const world = { memoryAvailable: 50 * Mi, nodefsAvailable: 900, gcFrees: 0, candidates: [] };
    const { pressure, tick } = start([hardMemory(100 * Mi)], world, 30_000);
    await settle();
    world.memoryAvailable = 900 * Mi;
    await tick(10_000);
    await tick(10_000);
    expect(pressure).toEqual([['MemoryPressure']]);
    await tick(10_000);
    expect(pressure).toEqual([['MemoryPressure'], []]);
  });

  it('waits out a soft threshold grace period before evicting', async () => {
    const soft = hardMemory(100 * Mi, { kind: 'soft', gracePeriodMs: 20_000 });
    const world = { memoryAvailable: 50 * Mi, nodefsAvailable: 900, gcFrees: 0, candidates: [usingMemory('p', 10 * Mi)] };
    const { calls, pressure, tick } = start([soft], world);
    await settle();
    expect(pressure).toEqual([['MemoryPressure']]);
    await tick(10_000);
    expect(calls.evict).toEqual([]);
    await tick(10_000);
    expect(calls.evict.map((e) => [e.podUid, e.gracePeriodSeconds, e.atMs])).toEqual([['uid-p', 0, 20_000]]);
  });

  it('reclaims at node level first for disk and evicts nobody when GC frees enough', async () => {
    const world = { memoryAvailable: 900 * Mi, nodefsAvailable: 50, gcFrees: 100, candidates: [usingMemory('p', 10 * Mi)] };
    const { calls, pressure, manager } = start([diskHard], world);
    await settle();
    expect(pressure).toEqual([['DiskPressure']]);
    expect(calls.reclaim).toEqual([{ signal: 'nodefs.available', resource: 'ephemeral-storage' }]);
    expect(calls.evict).toEqual([]);
    expect(stateOf(manager())).toBe('waiting');
  });

  it('evicts after node-level reclaim when GC does not free enough', async () => {
    const world = { memoryAvailable: 900 * Mi, nodefsAvailable: 50, gcFrees: 10, candidates: [usingMemory('p', 10 * Mi)] };
    const { calls } = start([diskHard], world);
    await settle();
    expect(calls.reclaim).toHaveLength(1);
    expect(calls.evict.map((e) => e.podUid)).toEqual(['uid-p']);
    expect(calls.evict[0]!.message).toMatch(/^The node was low on resource: ephemeral-storage\. Threshold quantity: 100, available: 50\. /);
  });
});
