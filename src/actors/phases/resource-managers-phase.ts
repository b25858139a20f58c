/**
 * startKubelet.resourceManagers: the container manager's start of its resource managers (Go's
 * cm.Start → cpuManager.Start, memoryManager.Start, deviceManager.Start, in
 * initializeRuntimeDependentModules): what admission allocates from (the inventory) and the
 * assignments the state files kept across a restart, which become the syncLoop's first `resources`.
 * A state file it refuses stops the start, as Go's kubelet exits when cm.Start fails.
 */
import { KubeletError } from '../../domain/errors.js';
import { cpuManagerInventory } from '../../domain/resource-managers/cpu-manager-setup.js';
import type { CpuInventory } from '../../domain/resource-managers/cpu-inventory.js';
import type { ResourceInventory } from '../../domain/resource-managers/inventory.js';
import { numaInventory } from '../../domain/resource-managers/numa-inventory.js';
import { KUBELET_DATA_DIRECTORY_MODE } from '../../domain/node/data-directories.js';
import { parseGoDuration } from '../../domain/config/duration.js';
import { createCpuReconcile } from '../resource-managers/cpu-reconcile.js';
import { LiveResources } from '../resource-managers/live-resources.js';
import { readStateFiles, resourceStateFiles } from '../resource-managers/state-files.js';
import type { PhaseDeps } from './deps.js';
import { outputOf, phaseActor } from './phase-actor.js';
import { settings } from './settings.js';

/** The static CPU manager's inventory (the topology read from /sys only then), or null with the none policy. */
async function cpuInventory(deps: PhaseDeps): Promise<CpuInventory | null> {
  const c = settings.config(deps.live);
  if (c.cpuManagerPolicy !== 'static') return null;
  const built = cpuManagerInventory({
    policy: c.cpuManagerPolicy,
    policyOptions: c.cpuManagerPolicyOptions,
    betaOptionsGate: deps.live.gates.peek()?.['CPUManagerPolicyBetaOptions'] ?? true,
    reservedSystemCPUs: c.reservedSystemCPUs,
    ...(c.kubeReserved.cpu !== undefined ? { kubeReservedCpu: c.kubeReserved.cpu } : {}),
    ...(c.systemReserved.cpu !== undefined ? { systemReservedCpu: c.systemReserved.cpu } : {}),
    topology: await deps.resourceManagers.cpuTopology.read(),
  });
  if (!built.ok) throw new KubeletError('KLT_ERR_CONFIG_INVALID', built.message);
  deps.logger.info({ reserved: built.inventory?.reserved, options: built.inventory?.options }, 'Static policy created with configuration');
  return built.inventory;
}

export function resourceManagersPhase(deps: PhaseDeps) {
  const { live } = deps;
  return phaseActor(async ({ input }) => {
    const c = settings.config(live);
    const rootDir = settings.rootDir(live);
    const numa = numaInventory({ config: c, nodes: await deps.resourceManagers.numaTopology.read(), memoryCapacityBytes: outputOf(input, 'run.machineInfo').memoryCapacityBytes });
    if (!numa.ok) throw new KubeletError('KLT_ERR_CONFIG_INVALID', numa.message);
    const inventory: ResourceInventory = {
      devices: {},
      cpu: await cpuInventory(deps),
      memory: numa.memory,
      topology: numa.topology,
    };
    const periodMs = parseGoDuration(c.cpuManagerReconcilePeriod);
    // Go would loop without pause on a negative period (its zero is defaulted to 10s).
    if (inventory.cpu && periodMs <= 0) throw new KubeletError('KLT_ERR_CONFIG_INVALID', `cpuManagerReconcilePeriod (--cpu-manager-reconcile-period) must be positive, got ${c.cpuManagerReconcilePeriod}`);
    await deps.makeDirectories([{ path: rootDir, mode: KUBELET_DATA_DIRECTORY_MODE }]);
    const stateFiles = resourceStateFiles({ rootDir, inventory, policies: { cpu: c.cpuManagerPolicy, memory: c.memoryManagerPolicy }, files: deps.resourceManagers.files,
      devices: { dir: settings.flags(live).devicePluginsDir, store: deps.devices }, warn: (message) => deps.logger.error(message) });
    const assignments = await readStateFiles(stateFiles);
    // Go writes each checkpoint as it starts (a new one, or the validated old one).
    for (const file of stateFiles) await file.write(assignments);
    const liveResources = new LiveResources(inventory, assignments);
    const cpuReconcile = inventory.cpu
      ? { periodMs, run: createCpuReconcile({ runtime: () => live.cri.require().runtime, live: liveResources, activePodUids: deps.resourceManagers.activePodUids, logger: deps.logger }) }
      : undefined;
    live.resourceManagers.set({ live: liveResources, stateFiles, ...(cpuReconcile ? { cpuReconcile } : {}) });
    return { inventory, assignments };
  });
}
