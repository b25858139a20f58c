import { describe, expect, it } from 'vitest';
import { RecentMax } from '../../../src/domain/kubelet-server/recent-max.js';

describe('RecentMax', () => {
  it('answers the largest value of the window, 0 before any', () => {
    const m = new RecentMax(60);
    expect(m.max(1_000)).toBe(0);
    m.record(1_000, 40);
    m.record(1_500, 90);
    m.record(30_000, 12);
    expect(m.max(31_000)).toBe(90);
  });

  it('forgets a value once its second has left the window', () => {
    const m = new RecentMax(60);
    m.record(1_000, 90);
    m.record(30_000, 12);
    expect(m.max(60_999)).toBe(90);
    expect(m.max(61_000)).toBe(12);
  });

  it('reuses a slot a minute later without keeping the old second\'s value', () => {
    const m = new RecentMax(60);
    m.record(5_000, 500);
    m.record(65_000, 3);
    expect(m.max(65_000)).toBe(3);
  });
});
