/**
 * The PLEG's relist over the CRI (Go's runtime GetPods(all=true)): ListPodSandbox and
 * ListContainers without filters, grouped by the io.kubernetes.pod.uid label (sandboxes and
 * containers without it are not the kubelet's and are skipped). Stamped with the clock when it
 * starts, and timed.
 */
import { relistDigest, type RelistOutput, type RelistPod } from '../../domain/pleg/relist.js';
import { podUidLabel } from '../../domain/runtime/labels.js';
import type { Clock } from '../../ports/clock.js';
import type { Container, CriClient, PodSandbox } from '../../ports/cri.js';
import { runtimeContainerState } from '../runtime-manager/container-state.js';

/** The runtime's lists grouped by pod, sorted by uid, with their digest. */
interface Grouped { pods: RelistPod[]; digest: string }

function groupByPod(sandboxes: readonly PodSandbox[], containers: readonly Container[]): Grouped {
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
    podFor(uid).containers.push({ id: c.id, name: c.metadata.name, state: runtimeContainerState(c.state) });
  }
  const sorted = [...pods.values()].sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
  return { pods: sorted, digest: relistDigest(sorted) };
}

export type Relister = () => Promise<RelistOutput & { digest: string }>;

/**
 * One relist per call. When the CRI client hands back the very lists of the previous relist (it
 * does for a byte-identical answer: cri-grpc/repeated-answers.ts), their grouping and digest are
 * reused rather than worked out again: that is every relist of a quiet node.
 */
export function createRelister(cri: Pick<CriClient, 'runtime'>, clock: Pick<Clock, 'now'>): Relister {
  let last: { sandboxes: readonly PodSandbox[]; containers: readonly Container[]; grouped: Grouped } | null = null;
  return async () => {
    const observedAtMs = clock.now();
    const [sandboxes, containers] = await Promise.all([cri.runtime.listPodSandbox(), cri.runtime.listContainers()]);
    const durationMs = clock.now() - observedAtMs;
    if (last === null || last.sandboxes !== sandboxes || last.containers !== containers) {
      last = { sandboxes, containers, grouped: groupByPod(sandboxes, containers) };
    }
    return { observedAtMs, durationMs, pods: last.grouped.pods, digest: last.grouped.digest };
  };
}
