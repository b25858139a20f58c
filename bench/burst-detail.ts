/**
 * KUBELET_BENCH_BURST_DETAIL=1: more of a burst than its CPU and peak RSS. The kubelet's memory by
 * kind (smaps-classes.ts) before the burst and at its peak, and the burst's CPU by thread (`thread0`
 * the main one, then in the order they started); the bench also prints the burst's span then, to cut
 * a `perf` recording to it (scripts/perf-categories.ts).
 */
import { threadCpuSeconds } from './proc-usage.js';
import { processSmapsClasses, type SmapsClasses } from './smaps-classes.js';
import { round } from './stats.js';

export const BURST_DETAIL = process.env.KUBELET_BENCH_BURST_DETAIL === '1';

export interface BurstDetail {
  /** The RSS has reached a new peak: classify the memory there. */
  atPeak(): void;
  /** The burst is over: its figures into `out`. */
  finish(out: Record<string, number>): void;
}

/** Readings taken now, at the burst's start; undefined when the detail is not asked for. */
export function startBurstDetail(pid: number): BurstDetail | undefined {
  if (!BURST_DETAIL) return undefined;
  const before = processSmapsClasses(pid);
  const threads0 = threadCpuSeconds(pid);
  let peak: SmapsClasses | undefined;
  return {
    atPeak: () => (peak = processSmapsClasses(pid)),
    finish: (out) => {
      [...threadCpuSeconds(pid)].forEach(([tid, seconds], i) => {
        const used = seconds - (threads0.get(tid) ?? 0);
        if (used > 0) out[`burst.thread${i}.cpuSeconds`] = round(used, 2);
      });
      for (const [when, classes] of [['before', before], ['peak', peak]] as const) {
        for (const [name, mib] of Object.entries(classes ?? {})) out[`burst.${when}.${name}MiB`] = mib;
      }
    },
  };
}
