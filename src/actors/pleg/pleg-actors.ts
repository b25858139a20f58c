/** The PLEG's effectful actors (PLEG_EFFECTS) over the CRI client and the clock. */
import { fromPromise } from 'xstate';
import { relistDigest, type RelistInput, type RelistOutput } from '../../domain/pleg/relist.js';
import type { Clock } from '../../ports/clock.js';
import type { CriClient } from '../../ports/cri.js';
import { relistPods } from './relist.js';

export function createPlegActors(cri: Pick<CriClient, 'runtime'>, clock: Pick<Clock, 'now'>) {
  return {
    relist: fromPromise<RelistOutput, RelistInput>(async ({ input }) => {
      const out = await relistPods(cri, clock);
      const digest = relistDigest(out.pods ?? []);
      if (input?.previousDigest === digest) return { observedAtMs: out.observedAtMs, ...(out.durationMs !== undefined ? { durationMs: out.durationMs } : {}), digest, unchanged: true };
      return { ...out, digest };
    }),
  };
}
