import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createListCoalescer } from '../../../src/adapters/device-plugins/list-coalescer.js';
import { sameListedDevices, type ListedDevice } from '../../../src/domain/device-manager/devices.js';

const list = (n: number, health = 'Healthy'): ListedDevice[] => Array.from({ length: n }, (_, i) => ({ ID: `dev-${i}`, health }));

describe('createListCoalescer', () => {
  let delivered: ListedDevice[][];
  let floods: number[];
  const make = () => createListCoalescer<ListedDevice[]>({
    deliver: (l) => delivered.push(l), same: sameListedDevices, onFlood: (n) => floods.push(n), intervalMs: 1_000, floodReportMs: 60_000,
  });

  beforeEach(() => {
    vi.useFakeTimers();
    delivered = [];
    floods = [];
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('delivers the first list at once, then the latest of each interval only', () => {
    const c = make();
    c.push(list(1));
    expect(delivered).toEqual([list(1)]);
    for (let n = 2; n <= 500; n++) c.push(list(n));
    expect(delivered).toHaveLength(1);
    vi.advanceTimersByTime(1_000);
    expect(delivered).toEqual([list(1), list(500)]);
    expect(floods).toEqual([498]);
  });

  it('delivers nothing for a list the same as the last one delivered, and a change after it', () => {
    const c = make();
    c.push(list(2));
    vi.advanceTimersByTime(5_000);
    c.push(list(2));
    c.push(list(2, 'Unhealthy'));
    vi.advanceTimersByTime(1_000);
    c.push(list(2, 'Unhealthy'));
    vi.advanceTimersByTime(5_000);
    expect(delivered.map((l) => l[0]?.health)).toEqual(['Healthy', 'Unhealthy']);
  });

  it('reports a flooding plugin at most once a minute, with what it passed over', () => {
    const c = make();
    for (let s = 0; s < 120; s++) {
      for (let k = 0; k < 10; k++) c.push(list(k + 1 + s));
      vi.advanceTimersByTime(1_000);
    }
    expect(floods.length).toBeGreaterThanOrEqual(2);
    expect(floods.length).toBeLessThanOrEqual(3);
    // The first second: one list delivered at once, one kept for the interval's end, eight passed over.
    expect(floods[0]).toBe(8);
  });

  it('delivers nothing after stop', () => {
    const c = make();
    c.push(list(1));
    c.push(list(2));
    c.stop();
    vi.advanceTimersByTime(5_000);
    expect(delivered).toEqual([list(1)]);
  });
});

describe('sameListedDevices', () => {
  it('compares ids, health and topology in order', () => {
    expect(sameListedDevices(list(3), list(3))).toBe(true);
    expect(sameListedDevices(list(3), list(2))).toBe(false);
    expect(sameListedDevices(list(1), list(1, 'Unhealthy'))).toBe(false);
    expect(sameListedDevices([{ ID: 'a', health: 'Healthy', topology: { nodes: [{ ID: 0 }] } }], [{ ID: 'a', health: 'Healthy', topology: { nodes: [{ ID: '1' }] } }])).toBe(false);
  });
});
