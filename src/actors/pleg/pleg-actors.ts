/** The PLEG's effectful actors (PLEG_EFFECTS) over the CRI client and the clock. */
import { fromPromise } from 'xstate';
import type { RelistInput, RelistOutput } from '../../domain/pleg/relist.js';
import type { Clock } from '../../ports/clock.js';
import type { CriClient } from '../../ports/cri.js';
import { createRelister } from './relist.js';

export function createPlegActors(cri: Pick<CriClient, 'runtime'>, clock: Pick<Clock, 'now'>) {
  const relist = createRelister(cri, clock);
  return {
    relist: fromPromise<RelistOutput, RelistInput>(async ({ input }) => {
      const out = await relist();
      if (input?.previousDigest === out.digest) return { observedAtMs: out.observedAtMs, durationMs: out.durationMs, digest: out.digest, unchanged: true };
      return out;
    }),
  };
}
