/**
 * Gives back what a busy spell grew of the V8 heap once the node is quiet again. V8 shrinks its heap
 * by itself only when the process allocates very little; a kubelet never quite does (the relist every
 * second, statuses, the API server's watches), so after a burst of pod starts the heap would keep the
 * burst's size for as long as the node runs. Go's runtime returns such memory in the background; here
 * one full collection does it, once the heap has grown by `growthBytes` over its size after the last
 * one and has stopped growing (two samples a period apart within `settleBytes`), so it never runs in
 * the middle of the work that grew the heap, and never twice for one growth.
 *
 * Pods leaving are the other moment: their state and the work of tearing them down are garbage at
 * once, and a node that lost many pods often gets new ones next (a rollout, a drain and refill), whose
 * start would grow the heap on top of that garbage. So once the node's pod count (told through
 * `podCount`) has fallen by `podsLeft` from its highest since the last collection, and held for
 * `podsHoldMs`, the trimmer collects then. It is told of changes rather than polling, so an idle node
 * pays nothing for it.
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
  podsHoldMs?: number;
  podsLeft?: number;
  /** A full collection; undefined when node was started without --expose-gc. */
  collect?: (() => void) | undefined;
  /** Why: the heap grew and settled, or pods left. */
  onTrim?: (before: number, after: number, why: 'grown' | 'podsLeft') => void;
}

const MIB = 1024 * 1024;

export interface HeapTrimmer {
  /** The node's pod count now; call it when it changes. */
  podCount: (pods: number) => void;
  stop: () => void;
}

export function startHeapTrimmer(clock: Clock, options: HeapTrimOptions = {}): HeapTrimmer {
  const {
    periodMs = 10_000, growthBytes = 8 * MIB, settleBytes = MIB,
    heapSize = () => getHeapStatistics().total_heap_size,
    podsHoldMs = 250, podsLeft = 10,
    onTrim,
  } = options;
  const collect = 'collect' in options ? options.collect : (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) return { podCount: () => {}, stop: () => {} };
  let floor = heapSize();
  let last = floor;
  let mostPods = 0;
  let lastPods = 0;
  let holding: unknown;
  const unhold = () => {
    if (holding !== undefined) clock.clearTimeout(holding);
    holding = undefined;
  };
  const trim = (why: 'grown' | 'podsLeft') => {
    unhold();
    const before = heapSize();
    collect();
    const after = heapSize();
    onTrim?.(before, after, why);
    floor = last = after;
    mostPods = lastPods;
  };
  const sample = () => {
    const size = heapSize();
    const settled = Math.abs(size - last) <= settleBytes;
    last = size;
    if (size < floor) floor = size;
    if (settled && size - floor >= growthBytes) trim('grown');
    timer = clock.setTimeout(sample, periodMs);
  };
  let timer = clock.setTimeout(sample, periodMs);
  return {
    podCount: (pods) => {
      if (pods === lastPods) return;
      lastPods = pods;
      if (pods > mostPods) mostPods = pods;
      // Each change restarts the hold: the collection waits for the last pod of a wave to leave.
      unhold();
      if (mostPods - pods >= podsLeft) {
        holding = clock.setTimeout(() => {
          holding = undefined;
          trim('podsLeft');
        }, podsHoldMs);
      }
    },
    stop: () => {
      clock.clearTimeout(timer);
      unhold();
    },
  };
}
