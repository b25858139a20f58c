/**
 * What a relist shows of the dead of each pod with a ContainerDied or ContainerRemoved event, so the
 * syncLoop asks the pod deletors only when they have something to remove. Go's deletors read the pod
 * cache the relist keeps: a container that dies as its pod's only dead instance of its name costs
 * them no runtime call. Ours read the runtime, so without these counts every such event made one,
 * and a node deleting many pods queued that many list calls ahead of the removals that matter.
 */
import type { PlegEvent } from './diff.js';
import type { RelistPod } from './relist.js';

export interface PodDeadCounts {
  /** The pod's sandboxes, whatever their state. */
  sandboxes: number;
  /** The pod's exited containers. */
  exited: number;
  /**
   * Per container that died in this relist and is still listed: the pod's exited containers of its
   * name, itself included. A died container not named here is gone already.
   */
  exitedOfName: Record<string, number>;
}

/** The counts of the events' pods that had a container or sandbox die or go. */
export function deadCounts(pods: readonly RelistPod[], events: readonly PlegEvent[]): Record<string, PodDeadCounts> {
  const byUid = new Map(pods.map((p) => [p.uid, p]));
  const counts: Record<string, PodDeadCounts> = {};
  for (const e of events) {
    if (e.type !== 'ContainerDied' && e.type !== 'ContainerRemoved') continue;
    const pod = byUid.get(e.podUid);
    const exited = pod?.containers.filter((c) => c.state === 'exited') ?? [];
    const entry = (counts[e.podUid] ??= { sandboxes: pod?.sandboxes.length ?? 0, exited: exited.length, exitedOfName: {} });
    const died = e.type === 'ContainerDied' ? exited.find((c) => c.id === e.containerId) : undefined;
    if (died) entry.exitedOfName[died.id] = exited.filter((c) => c.name === died.name).length;
  }
  return counts;
}
