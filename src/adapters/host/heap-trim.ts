/**
 * Gives back what a busy spell grew of the V8 heap once the node is quiet again. V8 shrinks its heap
 * by itself only when the process allocates very little; a kubelet never quite does (the relist every
 * second, statuses, the API server's watches), so after a burst of pod starts the heap would keep the
 * burst's size for as long as the node runs. Go's runtime returns such memory in the background; here
 * one full collection does it, once the heap has grown by `growthBytes` over its size after the last
 * one and has stopped growing (two samples a period apart within `settleBytes`), so it never runs in
 * the middle of the work that grew the heap, and never twice for one growth.
 *
 * The collection is V8's own `gc`, there only when node runs with --expose-gc (src/bin/node-flags.ts);
 * without it the trimmer does nothing.
 */
import { getHeapStatistics } from 'node:v8';
import type { Clock } from '../../ports/clock.js';

export interface HeapTrimOptions {
  periodMs?: number;
  growthBytes?: number;
  settleBytes?: number;
  /** The heap's committed size now. */
  heapSize?: () => number;
  /** A full collection; undefined when node was started without --expose-gc. */
  collect?: (() => void) | undefined;
  onTrim?: (before: number, after: number) => void;
}

const MIB = 1024 * 1024;

export function startHeapTrimmer(clock: Clock, options: HeapTrimOptions = {}): () => void {
  const {
    periodMs = 10_000, growthBytes = 8 * MIB, settleBytes = MIB,
    heapSize = () => getHeapStatistics().total_heap_size,
    onTrim,
  } = options;
  const collect = 'collect' in options ? options.collect : (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) return () => {};
  let floor = heapSize();
  let last = floor;
  const sample = () => {
    const size = heapSize();
    const settled = Math.abs(size - last) <= settleBytes;
    last = size;
    if (size < floor) floor = size;
    if (settled && size - floor >= growthBytes) {
      collect();
      const after = heapSize();
      onTrim?.(size, after);
      floor = last = after;
    }
    timer = clock.setTimeout(sample, periodMs);
  };
  let timer = clock.setTimeout(sample, periodMs);
  return () => clock.clearTimeout(timer);
}
