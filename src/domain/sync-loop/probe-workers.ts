/** The probe workers of a pod the syncLoop started, by id. */
import { probeWorkerId } from '../actor-ids.js';
import type { PodEntry } from './state.js';

/** `<container>:<probe>`, the key of PodEntry.probedStarts. */
export const probedStartKey = (container: string, probe: string): string => `${container}:${probe}`;

export function probeWorkersOf(uid: string, entry: Pick<PodEntry, 'probedStarts'>): `probe:${string}`[] {
  return Object.keys(entry.probedStarts).map((key) => {
    // The probe type has no colon, a container name given by a source may.
    const colon = key.lastIndexOf(':');
    return probeWorkerId(uid, key.slice(0, colon), key.slice(colon + 1));
  });
}
