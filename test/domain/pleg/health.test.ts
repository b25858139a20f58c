import { describe, expect, it } from 'vitest';
import { isPlegHealthy, plegHealth, plegRelistThresholdMs } from '../../../src/domain/pleg/health.js';

describe('plegHealth', () => {
  it.each([
    { name: 'never relisted', last: null, now: 5_000, healthy: false, message: 'pleg has yet to be successful' },
    { name: 'just relisted', last: 1_000, now: 2_000, healthy: true, message: undefined },
    { name: 'exactly at the threshold', last: 0, now: plegRelistThresholdMs, healthy: true, message: undefined },
    { name: 'past the threshold', last: 0, now: plegRelistThresholdMs + 1_500, healthy: false, message: 'pleg was last seen active 3m1.5s ago; threshold is 3m0s' },
  ])('$name', ({ last, now, healthy, message }) => {
    expect(plegHealth(last, now)).toEqual(message === undefined ? { healthy } : { healthy, message });
    expect(isPlegHealthy(last, now)).toBe(healthy);
  });
});
