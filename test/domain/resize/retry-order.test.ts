import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/domain/pod/types.js';
import { resizeIncreasesRequests, resizeRetryOrder, type DeferredResize } from '../../../src/domain/resize/retry-order.js';

/** A pod of one container asking `cpu` (requests; limits too when `guaranteed`), at `priority`. */
function asking(cpu: string, opts: { priority?: number; guaranteed?: boolean } = {}): Pod {
  const resources = { requests: { cpu, memory: '64Mi' }, ...(opts.guaranteed ? { limits: { cpu, memory: '64Mi' } } : {}) };
  return { metadata: { name: 'p', uid: 'p' }, spec: { containers: [{ name: 'main', image: 'busybox', resources }], ...(opts.priority !== undefined ? { priority: opts.priority } : {}) } };
}

const resize = (uid: string, from: string, to: string, since: number, opts: { priority?: number; guaranteed?: boolean } = {}): DeferredResize =>
  ({ uid, pod: asking(to, opts), allocated: asking(from, opts), since });

describe('resizeIncreasesRequests', () => {
  it('is true when cpu or memory asked grows, false when both stay or shrink', () => {
    expect(resizeIncreasesRequests(asking('2'), asking('1'))).toBe(true);
    expect(resizeIncreasesRequests(asking('1'), asking('2'))).toBe(false);
    expect(resizeIncreasesRequests(asking('1'), asking('1'))).toBe(false);
  });
});

describe('resizeRetryOrder', () => {
  it('puts a resize that asks for no more first, whatever its priority or age', () => {
    expect(resizeRetryOrder([resize('grows', '1', '2', 0, { priority: 100 }), resize('shrinks', '2', '1', 5)])).toEqual(['shrinks', 'grows']);
  });

  it('then the higher priority, then Guaranteed before Burstable, then the one deferred longest', () => {
    const order = resizeRetryOrder([
      resize('old-burstable', '1', '2', 0),
      resize('new-guaranteed', '1', '2', 3, { guaranteed: true }),
      resize('high', '1', '2', 9, { priority: 10 }),
      resize('older-burstable', '1', '2', -1),
    ]);
    expect(order).toEqual(['high', 'new-guaranteed', 'older-burstable', 'old-burstable']);
  });
});
