/**
 * The pod worker's effectful actors over the runtime manager (POD_WORKER_EFFECTS): syncPod and
 * killPod hand back the manager's plain-JSON results; getPodStatus stamps the runtime's view with
 * the clock, which is how the machine learns the time (for the API status and activeDeadlineSeconds).
 * A rejection reaches the machine as an error event; the machine serializes it.
 */
import { fromPromise } from 'xstate';
import type { PodSyncOutcome } from '../../domain/pod/sync-outcome.js';
import type { GetPodStatusInput, KillPodInput, PodStatusObservation, SyncPodInput } from '../../machines/pod-worker.machine.js';
import type { Clock } from '../../ports/clock.js';
import type { RuntimeManager } from '../../ports/runtime-manager.js';
import type { KillPodResult, SyncPodResult } from '../../ports/runtime-manager.js';

// The machine reads the results through the domain's narrower shape: a compile error here means
// the runtime manager's results no longer fit it.
type Fits<T extends PodSyncOutcome> = T;
export type _ResultShapePins = [Fits<SyncPodResult>, Fits<KillPodResult>];

export function createPodWorkerActors(runtimeManager: Pick<RuntimeManager, 'syncPod' | 'killPod' | 'getPodStatus'>, clock: Pick<Clock, 'now'>) {
  return {
    // Typed as the machine reads them (XState checks provided actors invariantly); the whole
    // SyncPodResult still travels in the done event and the journal.
    syncPod: fromPromise<PodSyncOutcome, SyncPodInput>(({ input: { pod, ...opts } }) => runtimeManager.syncPod(pod, opts)),
    killPod: fromPromise<PodSyncOutcome, KillPodInput>(({ input }) => runtimeManager.killPod(input.pod, input.gracePeriodSeconds)),
    getPodStatus: fromPromise<PodStatusObservation, GetPodStatusInput>(async ({ input }) => {
      // Stamped before the read, as Go stamps a status with the time the read began.
      const observedAtMs = clock.now();
      const runtimeStatus = await runtimeManager.getPodStatus(input.podUid);
      return { runtimeStatus, observedAtMs };
    }),
  };
}
