/**
 * The labels and annotations the Go kubelet puts on sandboxes and containers (kuberuntime_labels.go),
 * and reading them back. They are how the kubelet finds a pod's sandboxes and containers in the
 * runtime (by the pod uid label) and how it remembers, across its own restarts, what it created:
 * the spec hash, the restart count, the termination message settings, the preStop hook.
 */
import type { Container, Pod } from '../pod/types.js';
import { hashContainer, hashContainerWithoutResources } from './container-hash.js';

export const podNameLabel = 'io.kubernetes.pod.name';
export const podNamespaceLabel = 'io.kubernetes.pod.namespace';
export const podUidLabel = 'io.kubernetes.pod.uid';
export const containerNameLabel = 'io.kubernetes.container.name';

export const containerHashAnnotation = 'io.kubernetes.container.hash';
/** The hash without resources and resizePolicy (container-hash.ts says why there are two). */
export const containerHashWithoutResourcesAnnotation = 'io.kubernetes.container.hashWithoutResources';
export const containerRestartCountAnnotation = 'io.kubernetes.container.restartCount';
export const containerTerminationMessagePathAnnotation = 'io.kubernetes.container.terminationMessagePath';
export const containerTerminationMessagePolicyAnnotation = 'io.kubernetes.container.terminationMessagePolicy';
export const containerPreStopHandlerAnnotation = 'io.kubernetes.container.preStopHandler';
export const containerPortsAnnotation = 'io.kubernetes.container.ports';
export const podDeletionGracePeriodAnnotation = 'io.kubernetes.pod.deletionGracePeriod';
export const podTerminationGracePeriodAnnotation = 'io.kubernetes.pod.terminationGracePeriod';

/** The defaults the API server would have applied (SetDefaults_Container). */
export const defaultTerminationMessagePath = '/dev/termination-log';
export const defaultTerminationMessagePolicy = 'File';

/** The pod's own labels plus the three io.kubernetes.pod.* ones, which win (newPodLabels). */
export function newPodLabels(pod: Pod): Record<string, string> {
  return {
    ...pod.metadata.labels,
    [podNameLabel]: pod.metadata.name,
    [podNamespaceLabel]: pod.metadata.namespace ?? 'default',
    [podUidLabel]: pod.metadata.uid,
  };
}

/** The sandbox carries the pod's annotations unchanged (newPodAnnotations). */
export function newPodAnnotations(pod: Pod): Record<string, string> {
  return { ...pod.metadata.annotations };
}

/** Containers carry only the identifying labels, not the pod's labels (newContainerLabels). */
export function newContainerLabels(container: Container, pod: Pod): Record<string, string> {
  return {
    [podNameLabel]: pod.metadata.name,
    [podNamespaceLabel]: pod.metadata.namespace ?? 'default',
    [podUidLabel]: pod.metadata.uid,
    [containerNameLabel]: container.name,
  };
}

/** newContainerAnnotations; the hash is written in hex, as Go's strconv.FormatUint(hash, 16). */
export function newContainerAnnotations(container: Container, pod: Pod, restartCount: number): Record<string, string> {
  const annotations: Record<string, string> = {
    [containerHashAnnotation]: hashContainer(container).toString(16),
    [containerHashWithoutResourcesAnnotation]: hashContainerWithoutResources(container).toString(16),
    [containerRestartCountAnnotation]: String(restartCount),
    [containerTerminationMessagePathAnnotation]: container.terminationMessagePath ?? defaultTerminationMessagePath,
    [containerTerminationMessagePolicyAnnotation]: container.terminationMessagePolicy ?? defaultTerminationMessagePolicy,
  };
  if (pod.metadata.deletionGracePeriodSeconds !== undefined) {
    annotations[podDeletionGracePeriodAnnotation] = String(pod.metadata.deletionGracePeriodSeconds);
  }
  if (pod.spec.terminationGracePeriodSeconds !== undefined) {
    annotations[podTerminationGracePeriodAnnotation] = String(pod.spec.terminationGracePeriodSeconds);
  }
  if (container.lifecycle?.preStop) {
    annotations[containerPreStopHandlerAnnotation] = JSON.stringify(container.lifecycle.preStop);
  }
  if (container.ports && container.ports.length > 0) {
    annotations[containerPortsAnnotation] = JSON.stringify(container.ports);
  }
  return annotations;
}

/** What a container's labels and annotations tell us back (getContainerInfoFromLabels/Annotations). */
export interface ContainerInfoFromRuntime {
  podName: string;
  podNamespace: string;
  podUid: string;
  containerName: string;
  /** 0 when missing or unparsable, as Go logs and carries on. */
  hash: number;
  /** Absent when the annotation is missing or unparsable: the full hash is compared then. */
  hashWithoutResources?: number;
  restartCount: number;
  terminationMessagePath: string;
  terminationMessagePolicy: string;
  podTerminationGracePeriodSeconds?: number;
  podDeletionGracePeriodSeconds?: number;
}

function parseIntOr(text: string | undefined, radix: number, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number.parseInt(text, radix);
  return Number.isFinite(n) ? n : fallback;
}

function optionalInt(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number.parseInt(text, 10);
  return Number.isFinite(n) ? n : undefined;
}

export function containerInfoFromRuntime(labels: Record<string, string>, annotations: Record<string, string>): ContainerInfoFromRuntime {
  const info: ContainerInfoFromRuntime = {
    podName: labels[podNameLabel] ?? '',
    podNamespace: labels[podNamespaceLabel] ?? '',
    podUid: labels[podUidLabel] ?? '',
    containerName: labels[containerNameLabel] ?? '',
    hash: parseIntOr(annotations[containerHashAnnotation], 16, 0),
    restartCount: parseIntOr(annotations[containerRestartCountAnnotation], 10, 0),
    terminationMessagePath: annotations[containerTerminationMessagePathAnnotation] ?? '',
    terminationMessagePolicy: annotations[containerTerminationMessagePolicyAnnotation] ?? '',
  };
  const withoutResources = annotations[containerHashWithoutResourcesAnnotation];
  if (withoutResources !== undefined && /^[0-9a-f]+$/i.test(withoutResources)) info.hashWithoutResources = Number.parseInt(withoutResources, 16);
  const termination = optionalInt(annotations[podTerminationGracePeriodAnnotation]);
  if (termination !== undefined) info.podTerminationGracePeriodSeconds = termination;
  const deletion = optionalInt(annotations[podDeletionGracePeriodAnnotation]);
  if (deletion !== undefined) info.podDeletionGracePeriodSeconds = deletion;
  return info;
}
