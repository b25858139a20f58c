import { describe, expect, it } from 'vitest';
import { mathRandom } from '../../src/adapters/math-random.js';
import { SeededRandom } from '../fakes/seeded-random.js';

describe('Random', () => {
  it('draws from [0, 1) with the real adapter', () => {
    for (let i = 0; i < 100; i++) {
      const v = mathRandom.next();
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(1);
    }
  });

  it('repeats its sequence for the same seed and differs for another (the fake)', () => {
    const a = new SeededRandom(42);
    const b = new SeededRandom(42);
    const c = new SeededRandom(43);
    const seq = (r: SeededRandom) => Array.from({ length: 5 }, () => r.next());
    const first = seq(a);
    expect(seq(b)).toEqual(first);
    expect(seq(c)).not.toEqual(first);
    expect(a.drawn).toEqual(first);
    for (const v of first) expect(v >= 0 && v < 1).toBe(true);
  });
});
