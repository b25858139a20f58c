import { describe, expect, it } from 'vitest';
import { churnChart } from '../../bench/churn-plot.js';
import type { ChurnSample } from '../../bench/churn-fit.js';

describe('the churn chart', () => {
  it('draws a line per series with its label, scaled to the largest finite figure', () => {
    const samples: ChurnSample[] = [0, 1000, 2000].map((podsRun, i) => ({ t: i, podsRun, figures: { rssMiB: 70 + i, heapUsedMiB: i === 1 ? NaN : 20 } }));
    const svg = churnChart('title <x>', [
      { label: 'Go kubelet RSS', color: '#00f', samples, figure: 'rssMiB' },
      { label: 'kubelet-ts V8 heap used', color: '#f00', dashed: true, samples: samples.filter((s) => Number.isFinite(s.figures.heapUsedMiB)), figure: 'heapUsedMiB' },
    ]);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('title &lt;x>');
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(svg).toContain('Go kubelet RSS');
    expect(svg).not.toContain('NaN');
    // 2000 pods run is the right edge of the plot: x = left padding + plot width.
    expect(svg).toMatch(/points="60\.0,[\d.]+ 320\.0,[\d.]+ 580\.0,[\d.]+"/);
  });
});
