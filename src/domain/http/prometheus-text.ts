/**
 * The Prometheus text exposition format (version 0.0.4), written by hand rather than with a client
 * library: we only render snapshots the kubelet already holds, so counters, gauges and cumulative
 * histograms are enough. Families print `# HELP` (with the `[ALPHA] ` stability prefix that Go's
 * component-base adds), `# TYPE`, then samples; histograms as `_bucket{le=…}`, `_sum`, `_count`.
 */

export type Labels = Readonly<Record<string, string>>;

export interface ScalarSample {
  labels?: Labels;
  value: number;
}

export interface HistogramSample {
  labels?: Labels;
  /** Upper bounds in seconds, ascending; +Inf is added on output. */
  buckets: readonly number[];
  /** The observations, in seconds. */
  observations: readonly number[];
}

export type MetricFamily =
  | { name: string; help: string; type: 'counter' | 'gauge'; samples: readonly ScalarSample[] }
  | { name: string; help: string; type: 'histogram'; samples: readonly HistogramSample[] };

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
  const pairs = Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (extra) pairs.push(extra);
  if (pairs.length === 0) return '';
  return `{${pairs.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(',')}}`;
}

function histogramLines(name: string, s: HistogramSample): string[] {
  const lines: string[] = [];
  let sum = 0;
  for (const o of s.observations) sum += o;
  // Cumulative counts: each bucket counts every observation at or below its bound.
  for (const le of s.buckets) {
    let n = 0;
    for (const o of s.observations) if (o <= le) n++;
    lines.push(`${name}_bucket${labelText(s.labels, ['le', formatValue(le)])} ${n}`);
  }
  lines.push(`${name}_bucket${labelText(s.labels, ['le', '+Inf'])} ${s.observations.length}`);
  lines.push(`${name}_sum${labelText(s.labels)} ${formatValue(sum)}`);
  lines.push(`${name}_count${labelText(s.labels)} ${s.observations.length}`);
  return lines;
}

/** The whole exposition, families in the order given; a family without samples prints nothing (as Go). */
export function renderExposition(families: readonly MetricFamily[]): string {
  const out: string[] = [];
  for (const f of families) {
    if (f.samples.length === 0) continue;
    out.push(`# HELP ${f.name} [ALPHA] ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    if (f.type === 'histogram') {
      for (const s of f.samples) out.push(...histogramLines(f.name, s));
    } else {
      for (const s of f.samples) out.push(`${f.name}${labelText(s.labels)} ${formatValue(s.value)}`);
    }
  }
  return out.length === 0 ? '' : out.join('\n') + '\n';
}

/** Go's prometheus.DefBuckets. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
