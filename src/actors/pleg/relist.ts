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
import { byCodeUnits } from '../../domain/text/code-unit-order.js';

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
  const sorted = [...pods.values()].sort((a, b) => byCodeUnits(a.uid, b.uid));
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
  /**
   * After a relist that saw no sandbox, the sandboxes are listed first and the containers only if
   * there are any: the CRI creates every container in a sandbox and removes it with its sandbox,
   * so a node with no pods makes one call a second, not two. Otherwise both at once, as Go does.
   */
  const list = async (): Promise<[readonly PodSandbox[], readonly Container[]]> => {
    if (last === null || last.sandboxes.length > 0) return Promise.all([cri.runtime.listPodSandbox(), cri.runtime.listContainers()]);
    const sandboxes = await cri.runtime.listPodSandbox();
    return [sandboxes, sandboxes.length === 0 && last.containers.length === 0 ? last.containers : await cri.runtime.listContainers()];
  };
  return async () => {
    const observedAtMs = clock.now();
    const [sandboxes, containers] = await list();
    const durationMs = clock.now() - observedAtMs;
    if (last === null || last.sandboxes !== sandboxes || last.containers !== containers) {
      last = { sandboxes, containers, grouped: groupByPod(sandboxes, containers) };
    }
    return { observedAtMs, durationMs, pods: last.grouped.pods, digest: last.grouped.digest };
  };
}
