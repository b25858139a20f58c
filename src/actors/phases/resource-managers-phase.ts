/**
 * startKubelet.resourceManagers: the container manager's start of its resource managers (Go's
 * cm.Start → cpuManager.Start, memoryManager.Start, deviceManager.Start, in
 * initializeRuntimeDependentModules): what admission allocates from (the inventory) and the
 * assignments the state files kept across a restart, which become the syncLoop's first `resources`.
 * A state file it refuses stops the start, as Go's kubelet exits when cm.Start fails.
 */
import type { ResourceInventory } from '../../domain/resource-managers/inventory.js';
import { LiveResources } from '../resource-managers/live-resources.js';
import { readStateFiles, resourceStateFiles } from '../resource-managers/state-files.js';
import type { PhaseDeps } from './deps.js';
import { phaseActor } from './phase-actor.js';
import { settings } from './settings.js';

export function resourceManagersPhase(deps: PhaseDeps) {
  const { live } = deps;
  return phaseActor(async () => {
    const c = settings.config(live);
    const rootDir = settings.rootDir(live);
    const inventory: ResourceInventory = {
      devices: {},
      cpu: null,
      memory: null,
      topology: { policy: c.topologyManagerPolicy, scope: c.topologyManagerScope === 'pod' ? 'pod' : 'container', options: c.topologyManagerPolicyOptions },
    };
    await deps.makeDirectories([rootDir]);
    const stateFiles = resourceStateFiles({ rootDir, inventory, policies: { cpu: c.cpuManagerPolicy, memory: c.memoryManagerPolicy }, files: deps.resourceManagers.files,
      devices: { dir: settings.flags(live).devicePluginsDir, store: deps.devices } });
    const assignments = await readStateFiles(stateFiles);
    live.resourceManagers.set({ live: new LiveResources(inventory, assignments), stateFiles });
    return { inventory, assignments };
  });
}
