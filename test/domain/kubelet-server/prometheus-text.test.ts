import { describe, expect, it } from 'vitest';
import { countsFromMs } from '../../../src/domain/kubelet-server/histogram-counts.js';
import { formatValue, renderExposition } from '../../../src/domain/kubelet-server/prometheus-text.js';

describe('renderExposition', () => {
  it('writes HELP, TYPE and samples with sorted, escaped labels', () => {
    const text = renderExposition([
      { name: 'x_total', help: 'Things.\nMore', type: 'counter', samples: [{ labels: { b: '2', a: 'q"\\\n' }, value: 3 }] },
    ]);
    expect(text).toBe('# HELP x_total [ALPHA] Things.\\nMore\n# TYPE x_total counter\nx_total{a="q\\"\\\\\\n",b="2"} 3\n');
  });

  it('writes cumulative buckets with +Inf, the sum and the count', () => {
    const text = renderExposition([
      { name: 'h', help: 'H', type: 'histogram', samples: [{ labels: { op: 'a' }, counts: countsFromMs([0.1, 1], [50, 500, 700, 3000]) }] },
    ]);
    const lines = text.trim().split('\n');
    expect(lines).toContain('h_bucket{op="a",le="0.1"} 1');
    expect(lines).toContain('h_bucket{op="a",le="1"} 3');
    expect(lines).toContain('h_bucket{op="a",le="+Inf"} 4');
    expect(lines).toContain('h_sum{op="a"} 4.25');
    expect(lines).toContain('h_count{op="a"} 4');
  });

  it('sorts families by name, as Go\'s registry gathers them', () => {
    const text = renderExposition([
      { name: 'b', help: 'B', type: 'gauge', samples: [{ value: 1 }] },
      { name: 'a', help: 'A', type: 'gauge', samples: [{ value: 2 }] },
    ]);
    expect(text.split('\n').filter((l) => !l.startsWith('#'))).toEqual(['a 2', 'b 1', '']);
  });

  it('omits families without samples', () => {
    expect(renderExposition([{ name: 'g', help: 'G', type: 'gauge', samples: [] }])).toBe('');
  });

  it('spells infinities and NaN as Prometheus does', () => {
    expect([formatValue(Infinity), formatValue(-Infinity), formatValue(NaN), formatValue(1.5)]).toEqual(['+Inf', '-Inf', 'NaN', '1.5']);
  });
});

describe('renderExposition: timestamps, raw families and deprecation', () => {
  it('writes a sample\'s own timestamp in whole ms after its value', () => {
    const text = renderExposition([{ name: 'g', help: 'G', type: 'gauge', samples: [{ value: 2, timestampMs: 1_700_000_000_123.9 }, { labels: { a: 'b' }, value: 1 }] }]);
    expect(text.split('\n').slice(2)).toEqual(['g 2 1700000000123', 'g{a="b"} 1', '']);
  });

  it('prints a raw collector\'s help without a stability level', () => {
    expect(renderExposition([{ name: 'g', help: 'As cAdvisor says.', stability: null, type: 'gauge', samples: [{ value: 1 }] }])).toBe('# HELP g As cAdvisor says.\n# TYPE g gauge\ng 1\n');
  });

  it('puts a deprecation after the stability level, as component-base does', () => {
    const text = renderExposition([{ name: 'g', help: 'Old.', stability: 'ALPHA', deprecatedVersion: '1.29.0', type: 'gauge', samples: [{ value: 1 }] }]);
    expect(text.split('\n')[0]).toBe('# HELP g [ALPHA] (Deprecated since 1.29.0) Old.');
  });
});
