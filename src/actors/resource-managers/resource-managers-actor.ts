/**
 * The syncLoop's `resourceManagers` child (an effect: inert on replay): every `resources.changed`
 * updates the live assignments (the container starter's shared CPU pool) and writes each resource
 * manager's state file. Writes go one at a time; changes that came meanwhile are coalesced into one
 * write of the latest assignments. A failed write is logged and the next change writes again (Go
 * logs a failed checkpoint write and goes on too).
 */
import { fromCallback } from 'xstate';
import type { Assignments } from '../../domain/resource-managers/assignments.js';
import type { Logger } from '../../log.js';
import type { ResourcesChanged } from '../../machines/sync-loop.machine.js';
import type { LiveResources } from './live-resources.js';
import type { StateFile } from './state-files.js';

/** What the phase that started the resource managers left for their effects. */
export interface ResourceManagersRuntime {
  live: LiveResources;
  stateFiles: readonly StateFile[];
}

export function createResourceManagersActor(deps: { runtime: () => ResourceManagersRuntime; logger: Logger }) {
  return fromCallback<ResourcesChanged>(({ receive }) => {
    let pending: Assignments | null = null;
    let writing = false;
    const writeLatest = async (): Promise<void> => {
      writing = true;
      while (pending !== null) {
        const assignments: Assignments = pending;
        pending = null;
        for (const file of deps.runtime().stateFiles) {
          await file.write(assignments).catch((err: unknown) => deps.logger.error({ err, file: file.name }, 'Failed to write state file'));
        }
      }
      writing = false;
    };
    receive((event) => {
      deps.runtime().live.update(event.assignments);
      pending = event.assignments;
      if (!writing) void writeLatest();
    });
    return () => {};
  });
}
