/**
 * A small Prometheus text (0.0.4) parser for the tests of /metrics and /metrics/probes: every line
 * must be a HELP, a TYPE or a sample, and samples are returned by their full name with labels as
 * printed (`name{a="x",b="y"}` → value). Tests that need one label set use `sampleWith`.
 */
import { expect } from 'vitest';

export function parseMetrics(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      expect(line).toMatch(/^# (HELP \w+ .+|TYPE \w+ (counter|gauge|histogram))$/);
      continue;
    }
    const m = /^(\w+)(\{[^}]*\})? (\S+)$/.exec(line);
    expect(m, line).not.toBeNull();
    samples.set(`${m![1]}${m![2] ?? ''}`, m![3] === '+Inf' ? Infinity : Number(m![3]));
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
