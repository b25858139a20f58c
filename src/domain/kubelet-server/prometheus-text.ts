/**
 * The Prometheus text exposition format (version 0.0.4), written by hand rather than with a client
 * library: we only render snapshots the kubelet already holds, so counters, gauges and cumulative
 * histograms are enough. Families print `# HELP` (with the `[ALPHA] ` stability prefix that Go's
 * component-base adds, or the family's own level), `# TYPE`, then samples; histograms as `_bucket{le=…}`, `_sum`, `_count`.
 * A sample may carry its own timestamp (epoch ms), as Go's resource metrics and cAdvisor's series
 * do: they are measured at the stats' time, not at the scrape's.
 */

import type { HistogramCounts } from './histogram-counts.js';
import { byFirstCodeUnits } from '../text/code-unit-order.js';

export type Labels = Readonly<Record<string, string>>;

export interface ScalarSample {
  labels?: Labels;
  value: number;
  /** When the value was measured, epoch ms (printed after the value); absent: the scrape's time. */
  timestampMs?: number;
}

/** Cumulative counts per upper bound (seconds, ascending); +Inf is added on output. */
export interface HistogramSample {
  labels?: Labels;
  counts: HistogramCounts;
}

/** component-base's stability levels, printed before the help text; ALPHA when not given. */
export type StabilityLevel = 'ALPHA' | 'BETA' | 'STABLE';

interface FamilyHead {
  name: string;
  help: string;
  /** null: a raw Prometheus collector's family (cAdvisor's), whose help has no stability prefix. */
  stability?: StabilityLevel | null;
  /** component-base's deprecation: the help reads `(Deprecated since <version>) …`. */
  deprecatedVersion?: string;
}

export type MetricFamily =
  | (FamilyHead & { type: 'counter' | 'gauge'; samples: readonly ScalarSample[] })
  | (FamilyHead & { type: 'histogram'; samples: readonly HistogramSample[] });

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Go's strconv-like float text; Prometheus spells infinities +Inf/-Inf and NaN as NaN. */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function escapeHelp(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function labelText(labels: Labels | undefined, extra?: [string, string]): string {
  const pairs = Object.entries(labels ?? {}).sort(byFirstCodeUnits);
  if (extra) pairs.push(extra);
  if (pairs.length === 0) return '';
  return `{${pairs.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(',')}}`;
}

function histogramLines(name: string, s: HistogramSample): string[] {
  const { buckets, counts, count, sumSeconds } = s.counts;
  const lines = buckets.map((le, i) => `${name}_bucket${labelText(s.labels, ['le', formatValue(le)])} ${counts[i] ?? 0}`);
  lines.push(`${name}_bucket${labelText(s.labels, ['le', '+Inf'])} ${count}`);
  lines.push(`${name}_sum${labelText(s.labels)} ${formatValue(sumSeconds)}`);
  lines.push(`${name}_count${labelText(s.labels)} ${count}`);
  return lines;
}

/** The help line's text: component-base puts the deprecation first, then the stability level before both. */
function helpText(f: FamilyHead): string {
  const help = f.deprecatedVersion ? `(Deprecated since ${f.deprecatedVersion}) ${f.help}` : f.help;
  return f.stability === null ? help : `[${f.stability ?? 'ALPHA'}] ${help}`;
}

function scalarLine(name: string, s: ScalarSample): string {
  const line = `${name}${labelText(s.labels)} ${formatValue(s.value)}`;
  return s.timestampMs === undefined ? line : `${line} ${Math.trunc(s.timestampMs)}`;
}

/** The whole exposition, families sorted by name as Go's registry gathers them; a family without samples prints nothing. */
export function renderExposition(families: readonly MetricFamily[]): string {
  const out: string[] = [];
  const sorted = [...families].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const f of sorted) {
    if (f.samples.length === 0) continue;
    out.push(`# HELP ${f.name} ${escapeHelp(helpText(f))}`, `# TYPE ${f.name} ${f.type}`);
    if (f.type === 'histogram') {
      for (const s of f.samples) out.push(...histogramLines(f.name, s));
    } else {
      for (const s of f.samples) out.push(scalarLine(f.name, s));
    }
  }
  return out.length === 0 ? '' : out.join('\n') + '\n';
}

/** Go's prometheus.DefBuckets. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
