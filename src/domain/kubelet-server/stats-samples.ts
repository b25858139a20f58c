/**
 * Samples from the stats summary's figures, shared by /metrics/resource and /metrics/cadvisor:
 * each carries the time its figure was measured (the stats' own, whole seconds), and a figure the
 * stats lack gives no sample rather than a zero.
 */
import { epochMsOfMetaTime } from '../stats/meta-time.js';
import type { CpuStats, MemoryStats } from '../stats/summary-types.js';
import type { Labels, ScalarSample } from './prometheus-text.js';

const NS_PER_SECOND = 1e9;

/** Cumulative CPU in core-seconds. */
export function cpuSecondsSamples(cpu: CpuStats | undefined, labels: Labels): ScalarSample[] {
  if (cpu?.usageCoreNanoSeconds === undefined) return [];
  return [{ labels, value: Number(cpu.usageCoreNanoSeconds) / NS_PER_SECOND, timestampMs: epochMsOfMetaTime(cpu.time) }];
}

export type MemoryFigure = 'workingSetBytes' | 'usageBytes' | 'rssBytes';

/** One memory figure in bytes. */
export function memorySamples(memory: MemoryStats | undefined, figure: MemoryFigure, labels: Labels): ScalarSample[] {
  const bytes = memory?.[figure];
  if (memory === undefined || bytes === undefined) return [];
  return [{ labels, value: Number(bytes), timestampMs: epochMsOfMetaTime(memory.time) }];
}

/** A start time in epoch seconds, without a timestamp of its own; none at or before the epoch (Go leaves those out). */
export function startTimeSamples(startTime: string, labels: Labels): ScalarSample[] {
  const ms = epochMsOfMetaTime(startTime);
  return ms > 0 ? [{ labels, value: ms / 1000 }] : [];
}
