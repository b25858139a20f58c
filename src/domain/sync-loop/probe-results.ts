/**
 * A probe worker's changed verdict, as Go's syncLoop takes the probe managers' updates: it reaches
 * the pod's worker while the pod runs, terminating included (readiness keeps probing then, so a pod
 * shutting down turns not ready). A startup success also lifts the gate of the container's liveness
 * and readiness workers, for the container it judged: Go's workers read `started` from the status
 * and probe from then on.
 */
import { probeWorkerId } from '../actor-ids.js';
import type { ProbeType } from '../probe/types.js';
import type { Decision, SyncLoopCommand } from './commands.js';
import { probedStartKey } from './probe-workers.js';
import { isRunningLifecycle, type SyncLoopState } from './state.js';

export interface ProbeResultChange {
  podUid: string;
  container: string;
  /** The container the verdict is about. */
  containerId: string;
  probe: ProbeType;
  result: string;
  observedAtMs?: number;
}

/** The probes a startup probe holds back until it succeeds. */
const gatedByStartup: readonly ProbeType[] = ['liveness', 'readiness'];

export function decideProbeResult<S extends Pick<SyncLoopState, 'pods'>>(state: S, change: ProbeResultChange): Decision<S> {
  const entry = state.pods[change.podUid];
  if (!entry || !isRunningLifecycle(entry.lifecycle)) return { state, commands: [] };
  const { container, probe, result, observedAtMs } = change;
  // With the probe's time, so a readiness change moves the Ready condition when the probe ran.
  const commands: SyncLoopCommand[] = [
    { kind: 'tellWorker', podUid: change.podUid, message: { type: 'probe.result.changed', container, probe, result, ...(observedAtMs !== undefined ? { observedAtMs } : {}) } },
  ];
  if (probe === 'startup' && result === 'success') {
    for (const gated of gatedByStartup) {
      if (entry.probedStarts[probedStartKey(container, gated)] === undefined) continue;
      commands.push({ kind: 'tellProbe', id: probeWorkerId(change.podUid, container, gated), message: { type: 'probe.startup.succeeded', containerId: change.containerId } });
    }
  }
  return { state, commands };
}
