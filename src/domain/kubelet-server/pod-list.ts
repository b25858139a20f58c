/**
 * The `/pods` and `/runningpods/` bodies: a v1 PodList. Go encodes the list with the legacy v1 codec,
 * so the list carries kind/apiVersion and an empty metadata, and the items do not repeat theirs.
 *
 * `/runningpods/` in Go comes from the runtime cache (kubecontainer.Pod.ToAPIPod): name, namespace,
 * uid, and per running container its name and image, nothing else. We build the same shape from the
 * pods the kubelet knows, keeping those with at least one running container; a pod the runtime runs
 * but the kubelet no longer knows (an orphan) is missing here, unlike Go.
 */
import type { Container, Pod } from '../pod/types.js';

export interface PodList {
  kind: 'PodList';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  items: Pod[];
}

function withoutTypeMeta(pod: Pod): Pod {
  const { apiVersion: _a, kind: _k, ...rest } = pod;
  return rest;
}

export function podList(pods: readonly Pod[]): PodList {
  return { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: pods.map(withoutTypeMeta) };
}

export function runningPodList(pods: readonly Pod[]): PodList {
  const items: Pod[] = [];
  for (const pod of pods) {
    const running = (pod.status?.containerStatuses ?? []).filter((s) => s.state?.running !== undefined);
    if (running.length === 0) continue;
    const containers: Container[] = running.map((s) => ({ name: s.name, image: s.image }));
    items.push({
      metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace ?? '', uid: pod.metadata.uid },
      spec: { containers },
    });
  }
  return { kind: 'PodList', apiVersion: 'v1', metadata: {}, items };
}
