import { describe, expect, it } from 'vitest';
import { slope, slopesPerThousandPods, type ChurnSample } from '../../bench/churn-fit.js';

describe('the churn bench\'s slopes', () => {
  it('fits a line through points, and is 0 for a flat or single point', () => {
    expect(slope([[0, 1], [1, 3], [2, 5]])).toBeCloseTo(2);
    expect(slope([[0, 4], [10, 4], [20, 4]])).toBe(0);
    expect(slope([[5, 1]])).toBe(0);
    expect(slope([[5, 1], [5, 2]])).toBe(0);
  });

  it('reads growth per 1,000 pods from the last two thirds only, so warm-up does not count', () => {
    const samples: ChurnSample[] = [0, 300, 600, 900, 1200, 1500, 1800, 2100, 2400, 2700, 3000].map((podsRun, i) => ({
      t: i * 10, podsRun,
      // A warm-up jump in the first third, flat after; fds grow by one every 100 pods throughout.
      figures: { rssMiB: podsRun < 1000 ? 40 + podsRun / 50 : 70, fds: 20 + podsRun / 100 },
    }));
    const out = slopesPerThousandPods(samples);
    expect(out.rssMiB).toBeCloseTo(0);
    expect(out.fds).toBeCloseTo(10);
  });
});
