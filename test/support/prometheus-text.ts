/**
 * /metrics and /metrics/probes as the tests read them: parsed by the benchmarks' strict parser
 * (bench/prometheus-samples.ts: every line a HELP, a TYPE or a sample under its family's TYPE), then
 * keyed by full name with labels as printed (`name{a="x",b="y"}` → value). Tests that need one label
 * set use `sampleWith`.
 */
import { expect } from 'vitest';
import { parseSamples } from '../../bench/prometheus-samples.js';

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export function parseMetrics(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const s of parseSamples(text)) {
    const labels = Object.entries(s.labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',');
    samples.set(labels ? `${s.name}{${labels}}` : s.name, s.value);
  }
  return samples;
}

/** The value of the one sample named `name` whose labels include every pair of `labels`, if any. */
export function sampleWith(samples: Map<string, number>, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const hits = [...samples].filter(([key]) => key.startsWith(`${name}{`) && wanted.every((pair) => key.includes(pair)));
  expect(hits.length, `samples of ${name} matching ${wanted.join(',')}`).toBeLessThanOrEqual(1);
  return hits[0]?.[1];
}
