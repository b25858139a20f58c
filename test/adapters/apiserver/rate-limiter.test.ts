import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { tokenBucketLimiter } from '../../../src/adapters/apiserver/rate-limiter.js';
import { settle } from '../../support/settle.js';


describe('tokenBucketLimiter', () => {
  it('lets the burst through and holds the next request for 1/qps on the injected clock', async () => {
    const clock = new SimulatedClock();
    const limiter = tokenBucketLimiter(10, 2, clock);
    const passed: number[] = [];
    for (let i = 0; i < 4; i++) void limiter.wait().then(() => passed.push(i));
    await settle();
    expect(passed).toEqual([0, 1]);
    clock.increment(99);
    await settle();
    expect(passed).toEqual([0, 1]);
    clock.increment(1);
    await settle();
    expect(passed).toEqual([0, 1, 2]);
    clock.increment(100);
    await settle();
    expect(passed).toEqual([0, 1, 2, 3]);
  });
});
