/**
 * The PLEG's relist over the CRI (Go's runtime GetPods(all=true)): ListPodSandbox and
 * ListContainers without filters, grouped by the io.kubernetes.pod.uid label (sandboxes and
 * containers without it are not the kubelet's and are skipped). Stamped with the clock when it
 * starts, and timed.
 */
import type { RelistOutput, RelistPod } from '../../domain/pleg/relist.js';
import { podUidLabel } from '../../domain/runtime/labels.js';
import type { RuntimeContainerState } from '../../domain/runtime/pod-status.js';
import type { Clock } from '../../ports/clock.js';
import type { ContainerState, CriClient } from '../../ports/cri.js';

const stateNames: Record<ContainerState, RuntimeContainerState> = {
  CONTAINER_CREATED: 'created',
  CONTAINER_RUNNING: 'running',
  CONTAINER_EXITED: 'exited',
  CONTAINER_UNKNOWN: 'unknown',
};

export async function relistPods(cri: Pick<CriClient, 'runtime'>, clock: Pick<Clock, 'now'>): Promise<RelistOutput> {
  const observedAtMs = clock.now();
  const [sandboxes, containers] = await Promise.all([cri.runtime.listPodSandbox(), cri.runtime.listContainers()]);
  const durationMs = clock.now() - observedAtMs;

  const pods = new Map<string, RelistPod>();
  const podFor = (uid: string): RelistPod => {
    let pod = pods.get(uid);
    if (!pod) {
      pod = { uid, sandboxes: [], containers: [] };
      pods.set(uid, pod);
    }
    return pod;
  };
  for (const s of sandboxes) {
    const uid = s.labels[podUidLabel];
    if (!uid) continue;
    podFor(uid).sandboxes.push({ id: s.id, state: s.state === 'SANDBOX_READY' ? 'ready' : 'notReady' });
  }
  for (const c of containers) {
    const uid = c.labels[podUidLabel];
    if (!uid) continue;
    podFor(uid).containers.push({ id: c.id, name: c.metadata.name, state: stateNames[c.state] });
  }
  const sorted = [...pods.values()].sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
  return { observedAtMs, durationMs, pods: sorted };
}
