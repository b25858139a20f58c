/**
 * Go's wipe of the node's ResourceSlices (the DRA plugin manager's wipeResourceSlices): when the
 * kubelet starts, every driver's (slices from before the restart may describe devices its plugin no
 * longer serves, so none are advertised until a plugin publishes them again); and one driver's, a
 * while after its last plugin went (DRIVER_WIPE_DELAY_MS) unless a plugin of it came back. The delete is tried
 * until it succeeds or finds nothing, waiting 1 s doubling with 20% jitter up to 5 min between tries,
 * 100 tries at most (wait.Backoff{Duration: 1s, Factor: 2, Jitter: 0.2, Cap: 5m, Steps: 100}).
 */
import { jitteredMs } from '../node-status/backoff.js';

export const SLICE_WIPE_TRIES = 100;
/** Go's defaultWipingDelay: a driver's plugin being replaced (a rolling update) keeps its slices. */
export const DRIVER_WIPE_DELAY_MS = 30_000;
const FIRST_WAIT_MS = 1_000;
const MAX_WAIT_MS = 5 * 60_000;
const JITTER = 0.2;

/** The field selector of the node's slices, all drivers' or one's, as Go writes it (keys in order). */
export function nodeSlicesSelector(nodeName: string, driver?: string): string {
  return driver ? `spec.driver=${driver},spec.nodeName=${nodeName}` : `spec.nodeName=${nodeName}`;
}

/** The wait after failed try number `tries` (1 = the first), with `random` in [0, 1). */
export function sliceWipeWaitMs(tries: number, random: number): number {
  return jitteredMs(Math.min(MAX_WAIT_MS, FIRST_WAIT_MS * 2 ** Math.max(0, tries - 1)), JITTER, random);
}
