/** What the runtime's records answer as CRI messages (ListPodSandbox's and ListContainers' items). */
import type { Container, Container__Output } from '../../../generated/runtime/v1/Container.js';
import type { ContainerState__Output } from '../../../generated/runtime/v1/ContainerState.js';
import type { PodSandbox, PodSandbox__Output } from '../../../generated/runtime/v1/PodSandbox.js';
import type { ContainerRecord, SandboxRecord } from '../state/records.js';

/** A listed sandbox, with the fields the runtime filters and compares on always set. */
export type ListedSandbox = PodSandbox & Pick<PodSandbox__Output, 'id' | 'state' | 'labels'>;
export type ListedContainer = Container & Pick<Container__Output, 'id' | 'state' | 'labels' | 'pod_sandbox_id'>;

export function containerState(container: ContainerRecord): ContainerState__Output {
  switch (container.phase) {
    case 'created': return 'CONTAINER_CREATED';
    case 'running': return 'CONTAINER_RUNNING';
    case 'exited': return 'CONTAINER_EXITED';
  }
}

export function toPodSandbox(sandbox: SandboxRecord): ListedSandbox {
  return {
    id: sandbox.id,
    metadata: sandbox.metadata,
    state: sandbox.state,
    created_at: sandbox.created_at,
    labels: sandbox.labels,
    annotations: sandbox.annotations,
    runtime_handler: sandbox.runtime_handler,
  };
}

export function toContainer(container: ContainerRecord): ListedContainer {
  return {
    id: container.id,
    pod_sandbox_id: container.pod_sandbox_id,
    metadata: container.metadata,
    image: container.image,
    image_ref: container.image_ref,
    image_id: container.image_ref,
    state: containerState(container),
    created_at: container.created_at,
    labels: container.labels,
    annotations: container.annotations,
  };
}
