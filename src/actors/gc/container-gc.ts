/**
 * Container garbage collection, as the Go kubelet's kuberuntime_gc.go does it, every minute:
 * 1. dead containers older than the minimum age are evictable; per (pod, container name) the newest
 *    `maxPerPodContainer` are kept for their logs, unless the pod is gone from every source (then
 *    all go); then, past a global cap (`maxContainers`, negative = none), the oldest go first;
 * 2. not-ready sandboxes without containers: the newest is kept for a pod that still exists;
 * 3. the log directories of pods that are gone and have no sandbox left.
 * "Gone" is only decided once every pod source has been seen (`activePods` answers null before).
 */
import type { Container, CriClient, PodSandbox } from '../../ports/cri.js';

export interface ContainerGcPolicy {
  minAgeMs: number;
  maxPerPodContainer: number;
  maxContainers: number;
}

export interface ContainerGcDeps {
  cri: Pick<CriClient, 'runtime'>;
  policy: ContainerGcPolicy;
  nowMs: number;
  /** UIDs of pods the kubelet still has; null while some pod source has not been seen yet. */
  activePods: () => ReadonlySet<string> | null;
  podLogsDir: string;
  listDirs: (dir: string) => Promise<string[]>;
  removeDir: (path: string) => Promise<void>;
}

export interface ContainerGcResult {
  removedContainers: string[];
  removedSandboxes: string[];
  removedLogDirs: string[];
}

const podUid = (labels: Record<string, string>) => labels['io.kubernetes.pod.uid'] ?? '';
const createdMs = (c: { created_at: string }) => Number(BigInt(c.created_at || '0') / 1_000_000n);
const newestFirst = (a: { created_at: string }, b: { created_at: string }) => (BigInt(b.created_at) > BigInt(a.created_at) ? 1 : BigInt(b.created_at) < BigInt(a.created_at) ? -1 : 0);

export async function collectContainers(deps: ContainerGcDeps): Promise<ContainerGcResult> {
  const { cri, policy, nowMs } = deps;
  const active = deps.activePods();
  const gone = (uid: string) => active !== null && !active.has(uid);

  // 1. Containers.
  const evictable = (await cri.runtime.listContainers()).filter(
    (c) => c.state !== 'CONTAINER_RUNNING' && c.state !== 'CONTAINER_CREATED' && nowMs - createdMs(c) >= policy.minAgeMs,
  );
  const groups = new Map<string, Container[]>();
  for (const c of evictable) {
    const key = `${podUid(c.labels)}/${c.metadata.name}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const doomed = new Set<string>();
  const kept: Container[] = [];
  for (const group of groups.values()) {
    group.sort(newestFirst);
    const keep = gone(podUid(group[0]!.labels)) ? 0 : Math.max(0, policy.maxPerPodContainer);
    group.slice(keep).forEach((c) => doomed.add(c.id));
    kept.push(...group.slice(0, keep));
  }
  if (policy.maxContainers >= 0 && kept.length > policy.maxContainers) {
    kept.sort(newestFirst);
    kept.slice(policy.maxContainers).forEach((c) => doomed.add(c.id));
  }
  const removedContainers: string[] = [];
  for (const id of doomed) {
    await cri.runtime.removeContainer(id);
    removedContainers.push(id);
  }

  // 2. Sandboxes.
  const withContainers = new Set((await cri.runtime.listContainers()).map((c) => c.pod_sandbox_id));
  const sandboxes = await cri.runtime.listPodSandbox();
  const byPod = new Map<string, PodSandbox[]>();
  for (const s of sandboxes) byPod.set(podUid(s.labels), [...(byPod.get(podUid(s.labels)) ?? []), s]);
  const removedSandboxes: string[] = [];
  for (const [uid, list] of byPod) {
    list.sort(newestFirst);
    const candidates = list.filter((s) => s.state === 'SANDBOX_NOTREADY' && !withContainers.has(s.id));
    const keepNewest = !gone(uid) && candidates[0] === list[0] ? 1 : 0;
    for (const s of candidates.slice(keepNewest)) {
      await cri.runtime.removePodSandbox(s.id);
      removedSandboxes.push(s.id);
    }
  }

  // 3. Log directories of pods that are gone, once nothing of theirs is left in the runtime.
  const removedLogDirs: string[] = [];
  if (active !== null) {
    const left = new Set((await cri.runtime.listPodSandbox()).map((s) => podUid(s.labels)));
    for (const name of await deps.listDirs(deps.podLogsDir)) {
      const uid = name.split('_')[2];
      if (!uid || active.has(uid) || left.has(uid)) continue;
      await deps.removeDir(`${deps.podLogsDir}/${name}`);
      removedLogDirs.push(name);
    }
  }
  return { removedContainers, removedSandboxes, removedLogDirs };
}
