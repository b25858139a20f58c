/** A CRI container state in the kubelet's own terms (Go's toKubeContainerState). */
import type { RuntimeContainerState } from '../../domain/runtime/pod-status.js';
import type { ContainerState } from '../../ports/cri.js';

const NAMES: Record<ContainerState, RuntimeContainerState> = {
  CONTAINER_CREATED: 'created',
  CONTAINER_RUNNING: 'running',
  CONTAINER_EXITED: 'exited',
  CONTAINER_UNKNOWN: 'unknown',
};

export const runtimeContainerState = (state: ContainerState): RuntimeContainerState => NAMES[state];
