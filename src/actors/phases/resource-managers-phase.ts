/**
 * startKubelet.resourceManagers: the container manager's start of its resource managers (Go's
 * cm.Start → cpuManager.Start, memoryManager.Start, deviceManager.Start, in
 * initializeRuntimeDependentModules): what admission allocates from (the inventory) and the
 * assignments the state files kept across a restart, which become the syncLoop's first `resources`.
 * A state file it refuses stops the start, as Go's kubelet exits when cm.Start fails.
 */
import { KubeletError } from '../../domain/errors.js';
import type { ResourceInventory } from '../../domain/resource-managers/inventory.js';
import { numaInventory } from '../../domain/resource-managers/numa-inventory.js';
import { LiveResources } from '../resource-managers/live-resources.js';
import { readStateFiles, resourceStateFiles } from '../resource-managers/state-files.js';
import type { PhaseDeps } from './deps.js';
import { outputOf, phaseActor } from './phase-actor.js';
import { settings } from './settings.js';

export function resourceManagersPhase(deps: PhaseDeps) {
  const { live } = deps;
  return phaseActor(async ({ input }) => {
    const c = settings.config(live);
    const rootDir = settings.rootDir(live);
    const numa = numaInventory({ config: c, nodes: await deps.resourceManagers.numaTopology.read(), memoryCapacityBytes: outputOf(input, 'run.machineInfo').memoryCapacityBytes });
    if (!numa.ok) throw new KubeletError('KLT_ERR_CONFIG_INVALID', numa.message);
    const inventory: ResourceInventory = {
      devices: {},
      cpu: null,
      memory: numa.memory,
      topology: numa.topology,
    };
    await deps.makeDirectories([rootDir]);
    const stateFiles = resourceStateFiles({ rootDir, inventory, policies: { cpu: c.cpuManagerPolicy, memory: c.memoryManagerPolicy }, files: deps.resourceManagers.files });
    const assignments = await readStateFiles(stateFiles);
    live.resourceManagers.set({ live: new LiveResources(inventory, assignments), stateFiles });
    return { inventory, assignments };
  });
}
