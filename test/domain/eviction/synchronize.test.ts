import { describe, expect, it } from 'vitest';
import { chooseEviction, initialEvictionMemory, isReclaimedByNode, nodeReclaimNeeded, observeCycle, type EvictionSettings } from '../../../src/domain/eviction/synchronize.js';
import { candidate, hardMemory, Mi, observed, usingMemory } from './fixtures.js';

const settings = (extra: Partial<EvictionSettings> = {}): EvictionSettings => ({
  thresholds: [hardMemory(100 * Mi), hardMemory(200 * Mi, { kind: 'soft', gracePeriodMs: 30_000 })],
  pressureTransitionPeriodMs: 60_000,
  maxPodGracePeriodSeconds: 20,
  ...extra,
});
const low = (time: string) => ({ 'memory.available': observed(50 * Mi, 1000 * Mi, time) });

describe('observeCycle', () => {
  it('reports MemoryPressure and the hard threshold at once', () => {
    const out = observeCycle(settings(), initialEvictionMemory(), low('2026-11-24T09:00:00Z'), 0);
    expect(out.conditions).toEqual(['MemoryPressure']);
    expect(out.starvation).toMatchObject({ signal: 'memory.available', resource: 'memory', hard: true });
  });

  it('does not act twice on the same reading, and keeps the condition for the transition period', () => {
    const first = observeCycle(settings(), initialEvictionMemory(), low('2026-11-24T09:00:00Z'), 0);
    const again = observeCycle(settings(), first.memory, low('2026-11-24T09:00:00Z'), 10_000);
    expect(again.starvation).toBeNull();
    const fine = { 'memory.available': observed(900 * Mi, 1000 * Mi, '2026-11-24T09:00:20Z') };
    expect(observeCycle(settings(), again.memory, fine, 69_999).conditions).toEqual(['MemoryPressure']);
    expect(observeCycle(settings(), again.memory, fine, 70_000).conditions).toEqual([]);
  });

  it('keeps acting on a met threshold until its minimum reclaim is free too', () => {
    const s = settings({ thresholds: [hardMemory(100 * Mi, { minReclaim: { quantity: 50 * Mi, text: '50Mi' } })] });
    const first = observeCycle(s, initialEvictionMemory(), low('2026-11-24T09:00:00Z'), 0);
    const short = observeCycle(s, first.memory, { 'memory.available': observed(120 * Mi, 1000 * Mi, '2026-11-24T09:00:10Z') }, 10_000);
    expect(short.starvation).toMatchObject({ signal: 'memory.available' });
    const enough = observeCycle(s, short.memory, { 'memory.available': observed(160 * Mi, 1000 * Mi, '2026-11-24T09:00:20Z') }, 20_000);
    expect(enough.starvation).toBeNull();
  });

  it('acts on a soft threshold only after its grace period', () => {
    const s = settings({ thresholds: [hardMemory(200 * Mi, { kind: 'soft', gracePeriodMs: 30_000 })] });
    const first = observeCycle(s, initialEvictionMemory(), low('2026-11-24T09:00:00Z'), 0);
    expect(first.conditions).toEqual(['MemoryPressure']);
    expect(first.starvation).toBeNull();
    expect(observeCycle(s, first.memory, low('2026-11-24T09:00:30Z'), 30_000).starvation).toMatchObject({ hard: false });
  });
});

describe('node-level reclaim', () => {
  it.each([
    ['nodefs.available', false, true],
    ['nodefs.available', true, false],
    ['imagefs.inodesFree', true, true],
    ['memory.available', false, false],
    ['pid.available', false, false],
  ] as const)('for %s with dedicated imagefs %s is %s', (signal, dedicated, want) => {
    expect(nodeReclaimNeeded(signal, dedicated)).toBe(want);
  });

  it('resolves only when every threshold has its minimum reclaim free', () => {
    const s = settings({ thresholds: [hardMemory(100 * Mi, { minReclaim: { quantity: 50 * Mi, text: '50Mi' } })] });
    expect(isReclaimedByNode(s, { 'memory.available': observed(120 * Mi, 1000 * Mi) })).toBe(false);
    expect(isReclaimedByNode(s, { 'memory.available': observed(160 * Mi, 1000 * Mi) })).toBe(true);
  });
});

describe('chooseEviction', () => {
  const starved = (hard: boolean) => ({ signal: 'memory.available' as const, resource: 'memory' as const, hard, thresholds: [hardMemory(100 * Mi)] });

  it('picks the top-ranked pod that is not critical, with grace 1 for a hard threshold', () => {
    const pods = [usingMemory('critical', 900 * Mi, { critical: true }), usingMemory('be', 10 * Mi)];
    expect(chooseEviction(settings(), starved(true), pods, low(''))).toMatchObject({ name: 'be', gracePeriodSeconds: 1 });
  });

  it('gives a soft eviction the smaller of evictionMaxPodGracePeriod and the pod own grace', () => {
    expect(chooseEviction(settings(), starved(false), [candidate('a', { terminationGracePeriodSeconds: 5 })], {})?.gracePeriodSeconds).toBe(5);
    expect(chooseEviction(settings(), starved(false), [candidate('a')], {})?.gracePeriodSeconds).toBe(20);
  });

  it('finds none when every pod is critical', () => {
    expect(chooseEviction(settings(), starved(true), [candidate('c', { critical: true })], {})).toBeNull();
  });
});
