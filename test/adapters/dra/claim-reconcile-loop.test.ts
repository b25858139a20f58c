import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { CLAIM_RECONCILE_PERIOD_MS, startClaimReconcileLoop } from '../../../src/adapters/dra/claim-reconcile-loop.js';

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the DRA claim reconcile loop', () => {
  it('reconciles once every pod source was seen, then every period, and stops when told', async () => {
    const clock = new SimulatedClock();
    const passes: string[][] = [];
    let holders: ReadonlySet<string> | null = null;
    const loop = startClaimReconcileLoop({
      manager: { reconcile: async (h) => { passes.push([...h]); return 0; } },
      holders: () => holders,
      clock,
    });
    await settle();
    // Before the sources are seen nothing is known to be gone.
    expect(passes).toEqual([]);
    holders = new Set(['pod-a']);
    clock.increment(CLAIM_RECONCILE_PERIOD_MS - 1);
    await settle();
    expect(passes).toEqual([]);
    clock.increment(1);
    await settle();
    expect(passes).toEqual([['pod-a']]);
    loop.stop();
    clock.increment(CLAIM_RECONCILE_PERIOD_MS);
    await settle();
    expect(passes).toHaveLength(1);
  });
});
