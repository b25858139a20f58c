import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock, type AnyActorRef } from 'xstate';
import { evictablePods } from '../../../src/actors/eviction/active-pods.js';
import { createEvictionActors } from '../../../src/actors/eviction/eviction-actors.js';
import { relayEvictionEvents } from '../../../src/actors/eviction/eviction-events.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import type { Summary } from '../../../src/domain/stats/summary-types.js';
import { createRootLogger } from '../../../src/log.js';
import type { PodEntry } from '../../../src/machines/sync-loop.machine.js';
import type { EventRequest } from '../../../src/domain/status-manager/event-aggregation.js';

const t = '2026-11-24T09:00:00Z';
const logger = createRootLogger({ verbosity: 0, destination: { write: () => {} } });
const pod = (uid: string): Pod => ({ metadata: { name: uid, namespace: 'default', uid }, spec: { containers: [{ name: 'c', image: 'i' }] } });
const summary = (available: bigint): Summary => ({
  node: { nodeName: 'n', startTime: t, memory: { time: t, availableBytes: available, workingSetBytes: 100n } },
  pods: [{ podRef: { name: 'a', namespace: 'default', uid: 'a' }, startTime: t, containers: [], memory: { time: t, workingSetBytes: 7n } }],
});

function atMs(ms: number): SimulatedClock {
  const clock = new SimulatedClock();
  clock.set(ms);
  return clock;
}

/** `read` answers both reads; the node's leaves the pods out, as the summary provider's nodeOnly does. `reads` counts them. */
function actors(read: () => Promise<Summary>, collectors?: { deleteAllUnusedContainers: () => Promise<void>; deleteUnusedImages: () => Promise<void> }, reads: string[] = []) {
  const host = {
    summary: async () => { reads.push('full'); return read(); },
    nodeSummary: async () => { reads.push('node'); return { ...(await read()), pods: [] }; },
    activePods: () => [pod('a')],
  };
  return createEvictionActors({ host, collectors: () => collectors, clock: atMs(42), logger });
}

async function run<T>(logic: Parameters<typeof createActor>[0], input?: unknown): Promise<T> {
  const actor = createActor(logic, { input });
  const done = new Promise<T>((resolve, reject) => actor.subscribe({ complete: () => resolve(actor.getSnapshot().output as T), error: reject }));
  actor.start();
  return done;
}

describe('eviction actors', () => {
  it('observe turns the node\'s stats into observations stamped on the clock, without reading the pods\' stats', async () => {
    const reads: string[] = [];
    const effects = actors(async () => summary(900n), undefined, reads);
    const reading = await run<{ observations: unknown; observedAtMs: number; dedicatedImageFs: boolean }>(effects.observe, {});
    expect(reading).toEqual({ observations: { 'memory.available': { available: 900, capacity: 1000, time: t } }, observedAtMs: 42, dedicatedImageFs: false });
    expect(reads).toEqual(['node']);
  });

  it('listCandidates reads the pods\' stats then, and gives the active pods with their usage', async () => {
    const reads: string[] = [];
    const candidates = await run<{ uid: string; usage?: { memoryBytes: number } }[]>(actors(async () => summary(900n), undefined, reads).listCandidates, {});
    expect(candidates.map((c) => [c.uid, c.usage?.memoryBytes])).toEqual([['a', 7]]);
    expect(reads).toEqual(['full']);
  });

  it('listCandidates answers no candidate when the pods\' stats cannot be read (no eviction this cycle)', async () => {
    expect(await run(actors(async () => { throw new Error('runtime down'); }).listCandidates, {})).toEqual([]);
  });

  it('observe answers null when the summary cannot be read', async () => {
    expect(await run(actors(async () => { throw new Error('runtime down'); }).observe, {})).toBeNull();
  });

  it('reclaimNodeLevel runs container GC, then image GC even when the first failed, then reads again', async () => {
    const calls: string[] = [];
    let available = 10n;
    const collectors = {
      deleteAllUnusedContainers: async () => { calls.push('containers'); throw new Error('boom'); },
      deleteUnusedImages: async () => { calls.push('images'); available = 500n; },
    };
    const out = await run<{ observations: Record<string, { available: number }> | null }>(actors(async () => summary(available), collectors).reclaimNodeLevel, { signal: 'nodefs.available', resource: 'ephemeral-storage' });
    expect(calls).toEqual(['containers', 'images']);
    expect(out.observations?.['memory.available']?.available).toBe(500);
  });
});

describe('evictablePods', () => {
  const entry = (uid: string, lifecycle: PodEntry['lifecycle'], phase?: 'Running' | 'Failed'): PodEntry =>
    ({ pod: pod(uid), lifecycle, removed: false, status: phase ? { phase } : null, probedStarts: {} });

  it('keeps admitted pods that are neither being killed nor finished', () => {
    const pods = { a: entry('a', 'active', 'Running'), b: entry('b', 'terminating'), c: entry('c', 'active', 'Failed'), d: entry('d', 'rejected'), e: entry('e', 'active') };
    expect(evictablePods({ pods }).map((p) => p.metadata.uid)).toEqual(['a', 'e']);
    expect(evictablePods(undefined)).toEqual([]);
  });
});

describe('relayEvictionEvents', () => {
  it('records EvictionThresholdMet on the Node and Evicted on the pod as Warning events', () => {
    const recorded: EventRequest[] = [];
    const listeners: Record<string, (e: unknown) => void> = {};
    const ref = { on: (type: string, fn: (e: unknown) => void) => { listeners[type] = fn; return { unsubscribe: () => {} }; } };
    // A stand-in for the machine's actor: the relay only calls `on`, so the rest of AnyActorRef is left out.
    relayEvictionEvents(ref as unknown as AnyActorRef, () => ({ recordEvent: (r) => void recorded.push(r), flush: async () => {} }));
    listeners['eviction.threshold.met']!({ type: 'eviction.threshold.met', nodeName: 'n1', reason: 'EvictionThresholdMet', message: 'Attempting to reclaim memory' });
    listeners['pod.evicted']!({ type: 'pod.evicted', pod: { namespace: 'ns', name: 'p', uid: 'u' }, reason: 'Evicted', message: 'm', annotations: {} });
    expect(recorded).toEqual([
      { object: { kind: 'Node', name: 'n1', uid: 'n1', namespace: '' }, type: 'Warning', reason: 'EvictionThresholdMet', message: 'Attempting to reclaim memory' },
      { object: { kind: 'Pod', apiVersion: 'v1', namespace: 'ns', name: 'p', uid: 'u' }, type: 'Warning', reason: 'Evicted', message: 'm' },
    ]);
  });
});
