/**
 * A pod worker's new status: kept as the pod's latest (the status manager reads it); a pod that ran
 * to completion has its volumes released (its directory stays until it is gone) and gives back what
 * the resource managers gave it (Go's active pods leave terminal ones out); an active pod's
 * probe workers are started for containers that started, and told of those that restarted.
 */
import { probeWorkerId } from '../actor-ids.js';
import { probeTargets } from '../pod/lifecycle.js';
import { isTerminalPhase } from '../pod/status.js';
import type { Pod, PodStatus } from '../pod/types.js';
import { containerRef } from '../runtime/container-events.js';
import type { Decision, ProbeStart, SyncLoopCommand } from './commands.js';
import { probedStartKey } from './probe-workers.js';
import { releaseResources } from './resources.js';
import type { SyncLoopState } from './state.js';

type State = Pick<SyncLoopState, 'pods' | 'resources'>;

export function decidePodStatus<S extends State>(state: S, podUid: string, status: PodStatus): Decision<S> {
  const entry = state.pods[podUid];
  if (!entry) return { state, commands: [] };
  const commands: SyncLoopCommand[] = [];
  const releaseVolumes = !entry.volumesReleased && isTerminalPhase(status.phase);
  if (releaseVolumes) commands.push({ kind: 'releaseVolumes', podUid, removeDirectory: false });
  const probedStarts = { ...entry.probedStarts };
  if (entry.lifecycle === 'active') {
    for (const t of probeTargets(entry.pod, status)) {
      const key = probedStartKey(t.container.name, t.probe);
      const id = probeWorkerId(podUid, t.container.name, t.probe);
      const known = probedStarts[key];
      if (known === t.startedAtMs) continue;
      if (known === undefined) {
        commands.push({
          kind: 'startProbe',
          probe: { id, podUid, podIP: status.podIP ?? '', container: t.container, containerId: t.containerId, probe: t.probe, containerStartedAtMs: t.startedAtMs, ...probeEventRef(entry.pod, t.container.name) },
        });
      } else {
        commands.push({ kind: 'tellProbe', id, message: { type: 'probe.container.restarted', containerId: t.containerId, containerStartedAtMs: t.startedAtMs, podIP: status.podIP ?? '' } });
      }
      probedStarts[key] = t.startedAtMs;
    }
  }
  const next = { ...entry, status, probedStarts, ...(releaseVolumes ? { volumesReleased: true } : {}) };
  const updated = { ...state, pods: { ...state.pods, [podUid]: next } };
  if (!isTerminalPhase(status.phase)) return { state: updated, commands };
  const released = releaseResources(updated, podUid);
  return { state: released.state, commands: [...commands, ...released.commands] };
}

/** The container's reference for its probe events, when the pod's spec names it. */
function probeEventRef(pod: Pod, container: string): Pick<ProbeStart, 'containerRef'> {
  const ref = containerRef(pod, container);
  return ref ? { containerRef: ref } : {};
}
