/**
 * The orderly stop: close what start-up opened, newest first, each bounded (Lifetimes).
 * Answers 'clean' when everything closed in time, 'failed' otherwise (the log says which).
 */
import { fromPromise } from 'xstate';
import type { PhaseDeps } from './deps.js';

export const PER_SUBSYSTEM_STOP_MS = 5000;

export function stopSubsystems(deps: PhaseDeps) {
  return fromPromise<'clean' | 'failed', { signal: string }>(async ({ input }) => {
    deps.logger.info({ signal: input.signal, subsystems: deps.lifetimes.names.reverse() }, 'Stopping kubelet');
    const report = await deps.lifetimes.closeAll(PER_SUBSYSTEM_STOP_MS);
    if (report.failed.length > 0 || report.timedOut.length > 0) {
      deps.logger.warn({ failed: report.failed, timedOut: report.timedOut }, 'Some subsystems did not stop cleanly');
      return 'failed';
    }
    return 'clean';
  });
}
