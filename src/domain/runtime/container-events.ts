/**
 * The events the runtime manager records about a pod and its containers, in the Go kubelet's
 * words (pkg/kubelet/kuberuntime, pkg/kubelet/images): the container reference
 * (GenerateContainerRef: the pod, with fieldPath `spec.containers{name}`, `spec.initContainers{name}`
 * or `spec.ephemeralContainers{name}`), and the message texts. Pure.
 *
 * Differs from Go: the reference carries no resourceVersion, so repeats of an event about a pod
 * whose status changed meanwhile are still counted on the same Event.
 */
import type { EventRequest, EventType, ObjectReference } from '../status-manager/event-aggregation.js';
import type { Pod } from '../pod/types.js';

type PodMeta = Pick<Pod, 'metadata' | 'spec'>;

/** Go's reference.GetReference for a pod. */
export function podObjectRef(pod: Pick<Pod, 'metadata'>): ObjectReference {
  return { kind: 'Pod', apiVersion: 'v1', namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name, uid: pod.metadata.uid };
}

/** Go's fieldPath: where the container is in the pod's spec; undefined when it is not there. */
export function containerFieldPath(pod: PodMeta, name: string): string | undefined {
  if (pod.spec.containers.some((c) => c.name === name)) return `spec.containers{${name}}`;
  if (pod.spec.initContainers?.some((c) => c.name === name)) return `spec.initContainers{${name}}`;
  if (pod.spec.ephemeralContainers?.some((c) => c.name === name)) return `spec.ephemeralContainers{${name}}`;
  return undefined;
}

/** Go's GenerateContainerRef; undefined when the pod has no such container. */
export function containerRef(pod: PodMeta, name: string): ObjectReference | undefined {
  const fieldPath = containerFieldPath(pod, name);
  return fieldPath === undefined ? undefined : { ...podObjectRef(pod), fieldPath };
}

/** An event about one container; undefined when the pod has no such container (Go then records none). */
export function containerEvent(pod: PodMeta, name: string, type: EventType, reason: string, message: string): EventRequest | undefined {
  const object = containerRef(pod, name);
  return object === undefined ? undefined : { object, type, reason, message };
}

export function podEvent(pod: Pick<Pod, 'metadata'>, type: EventType, reason: string, message: string): EventRequest {
  return { object: podObjectRef(pod), type, reason, message };
}

/** Go's format.Pod: "name_namespace(uid)". */
export function formatPod(pod: Pick<Pod, 'metadata'>): string {
  return `${pod.metadata.name}_${pod.metadata.namespace ?? 'default'}(${pod.metadata.uid})`;
}

/**
 * Go's time.Duration String for a span in milliseconds: "1.5s", "2m3.25s", "250ms", "0s" (the
 * clock here has millisecond resolution, so Go's finer units never appear).
 */
export function goDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms));
  if (total === 0) return '0s';
  if (total < 1000) return `${total}ms`;
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const millis = total % 60_000;
  const seconds = `${Math.floor(millis / 1000)}${millis % 1000 ? `.${String(millis % 1000).padStart(3, '0').replace(/0+$/, '')}` : ''}s`;
  if (hours > 0) return `${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${minutes}m${seconds}`;
  return seconds;
}

/** The messages Go's kuberuntime records, by event. */
export const ContainerEventMessage = {
  pulling: (image: string) => `Pulling image ${JSON.stringify(image)}`,
  pulled: (image: string, ms: number) => `Successfully pulled image ${JSON.stringify(image)} in ${goDuration(ms)}`,
  alreadyPresent: (image: string) => `Container image ${JSON.stringify(image)} already present on machine`,
  failedToPull: (image: string, err: string) => `Failed to pull image ${JSON.stringify(image)}: ${err}`,
  created: (name: string) => `Created container ${name}`,
  started: (name: string) => `Started container ${name}`,
  stopping: (name: string) => `Stopping container ${name}`,
  error: (message: string) => `Error: ${message}`,
  backOff: (name: string, pod: Pick<Pod, 'metadata'>) => `Back-off restarting failed container ${name} in pod ${formatPod(pod)}`,
  sandboxChanged: () => 'Pod sandbox changed, it will be killed and re-created.',
  failedCreateSandbox: (err: string) => `Failed to create pod sandbox: ${err}`,
  failedPrepareDynamicResources: (err: string) => `Failed to prepare dynamic resources: ${err}`,
} as const;
