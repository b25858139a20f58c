/**
 * The containerManager machine's effects (CONTAINER_MANAGER_EFFECTS) over the container manager
 * that run.containerManager built (read late: the machine starts after that phase).
 */
import { fromPromise } from 'xstate';
import type { QosCgroupConfigs } from '../../domain/cgroups/qos-cgroups.js';
import type { CleanupPodCgroupsInput, ContainerManagerStarted, PodCgroupSweep } from '../../machines/container-manager.machine.js';
import type { ContainerManager } from './container-manager.js';

/** `onStartFailed`: Go exits when ContainerManager.Start fails; the composition root asks for a stop. */
export function createContainerManagerActors(manager: () => ContainerManager, onStartFailed: (err: unknown) => void) {
  return {
    startContainerManager: fromPromise<ContainerManagerStarted>(() => manager().start().catch((err: unknown) => {
      onStartFailed(err);
      throw err;
    })),
    updateQosCgroups: fromPromise<QosCgroupConfigs | null>(() => manager().updateQos()),
    cleanupPodCgroups: fromPromise<PodCgroupSweep, CleanupPodCgroupsInput>(({ input }) => manager().cleanup(input.keep)),
  };
}
