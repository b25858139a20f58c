/** The PLEG's effectful actors (PLEG_EFFECTS) over the CRI client and the clock. */
import { fromPromise } from 'xstate';
import type { RelistOutput } from '../../domain/pleg/relist.js';
import type { Clock } from '../../ports/clock.js';
import type { CriClient } from '../../ports/cri.js';
import { relistPods } from './relist.js';

export function createPlegActors(cri: Pick<CriClient, 'runtime'>, clock: Pick<Clock, 'now'>) {
  return {
    relist: fromPromise<RelistOutput, void>(() => relistPods(cri, clock)),
  };
}
