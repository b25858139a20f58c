import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { startHeapTrimmer } from '../../../src/adapters/host/heap-trim.js';

const MIB = 1024 * 1024;

/** A heap whose committed size the test sets; a collection brings it back to `live`. */
function fakeHeap(start: number) {
  const heap = { size: start, live: start, collections: 0 };
  return {
    heap,
    options: {
      periodMs: 1000, growthBytes: 8 * MIB, settleBytes: MIB,
      heapSize: () => heap.size,
      collect: () => { heap.collections++; heap.size = heap.live; },
    },
  };
}

describe('startHeapTrimmer', () => {
  it('collects once the heap has grown by the threshold and stopped growing, then not again for that growth', () => {
    const clock = new SimulatedClock();
    const { heap, options } = fakeHeap(20 * MIB);
    const trims: Array<[number, number]> = [];
    const { stop } = startHeapTrimmer(clock, { ...options, onTrim: (before, after) => trims.push([before, after]) });
    try {
      // A burst: the heap grows over several samples; nothing is collected while it grows.
      for (const mib of [26, 32, 38]) {
        heap.size = mib * MIB;
        clock.increment(1000);
      }
      expect(heap.collections).toBe(0);
      // Quiet again: the next sample finds it where it was, 18 MiB over the floor, and collects.
      heap.live = 23 * MIB;
      clock.increment(1000);
      expect(heap.collections).toBe(1);
      expect(trims).toEqual([[38 * MIB, 23 * MIB]]);
      // The size after the collection is the new floor: an idle heap is never collected again.
      for (let i = 0; i < 10; i++) clock.increment(1000);
      expect(heap.collections).toBe(1);
    } finally {
      stop();
    }
  });

  it('leaves a heap that grew less than the threshold, or that shrank by itself, alone', () => {
    const clock = new SimulatedClock();
    const { heap, options } = fakeHeap(20 * MIB);
    const { stop } = startHeapTrimmer(clock, options);
    try {
      heap.size = 27 * MIB;
      for (let i = 0; i < 5; i++) clock.increment(1000);
      expect(heap.collections).toBe(0);
      // V8 shrank it: the lower size is the floor the next growth is measured from.
      heap.size = 15 * MIB;
      clock.increment(1000);
      heap.size = 22 * MIB;
      for (let i = 0; i < 5; i++) clock.increment(1000);
      expect(heap.collections).toBe(0);
      heap.size = 24 * MIB;
      clock.increment(1000);
      clock.increment(1000);
      expect(heap.collections).toBe(1);
    } finally {
      stop();
    }
  });

  it('collects once pods have left and their count has held, not while they leave or arrive', () => {
    const clock = new SimulatedClock();
    const { heap, options } = fakeHeap(20 * MIB);
    const trimmer = startHeapTrimmer(clock, { ...options, periodMs: 60_000, podsHoldMs: 250, podsLeft: 10 });
    try {
      // A burst of 30 pods arriving.
      for (const n of [10, 20, 30]) {
        trimmer.podCount(n);
        clock.increment(250);
      }
      expect(heap.collections).toBe(0);
      // They leave closer together than the hold: nothing is collected while the count still falls.
      heap.size = 34 * MIB;
      for (const n of [22, 12, 0]) {
        trimmer.podCount(n);
        clock.increment(100);
      }
      expect(heap.collections).toBe(0);
      // The count held: one collection, and none again while it stays there.
      clock.increment(150);
      expect(heap.collections).toBe(1);
      trimmer.podCount(0);
      clock.increment(5000);
      expect(heap.collections).toBe(1);
      // Fewer than podsLeft leaving is ordinary churn.
      trimmer.podCount(9);
      clock.increment(250);
      trimmer.podCount(0);
      clock.increment(1000);
      expect(heap.collections).toBe(1);
      // New pods arriving within the hold call it off.
      trimmer.podCount(20);
      trimmer.podCount(5);
      clock.increment(100);
      trimmer.podCount(15);
      clock.increment(1000);
      expect(heap.collections).toBe(1);
    } finally {
      trimmer.stop();
    }
  });

  it('does nothing without a collection to call (node started without --expose-gc), and stops its timer', () => {
    const clock = new SimulatedClock();
    const { heap, options } = fakeHeap(20 * MIB);
    const inert = startHeapTrimmer(clock, { ...options, collect: undefined });
    inert.podCount(30);
    inert.podCount(0);
    inert.stop();
    startHeapTrimmer(clock, options).stop();
    heap.size = 60 * MIB;
    for (let i = 0; i < 5; i++) clock.increment(1000);
    expect(heap.collections).toBe(0);
  });
});
