/**
 * The CPU manager's state file, `<root-dir>/cpu_manager_state`, as the resource managers' start
 * reads it and their effect writes it (Go's cpumanager stateCheckpoint): written with the none
 * policy too (its name and an empty set), refused when it names another policy, and, with the
 * static policy, checked against the machine before its assignments are taken up.
 */
import { join } from 'node:path';
import { KubeletError } from '../../domain/errors.js';
import { allCpus, sharedCpuPool } from '../../domain/resource-managers/cpu-pool.js';
import {
  assignmentsOfCpuState, CPU_MANAGER_STATE_FILE, cpuEntriesOf, cpuStateRefusal, decodeCpuState, encodeCpuState, staticStateProblem, type CpuState,
} from '../../domain/resource-managers/cpu-state-file.js';
import { CPU_MANAGER_STATE_MAX_BYTES } from '../../domain/resource-managers/state-file-limits.js';
import type { StateFile, StateFileContext } from './state-files.js';

export function cpuStateFile(ctx: StateFileContext): StateFile {
  const path = join(ctx.rootDir, CPU_MANAGER_STATE_FILE);
  const inventory = ctx.inventory.cpu;
  return {
    name: CPU_MANAGER_STATE_FILE,
    async read() {
      const text = await ctx.files.read(path, CPU_MANAGER_STATE_MAX_BYTES);
      if (text === null) return {};
      let state: CpuState;
      try {
        state = decodeCpuState(text, ctx.policies.cpu);
      } catch (err) {
        throw new KubeletError('KLT_ERR_CONFIG_INVALID', cpuStateRefusal((err as Error).message, path), { cause: err });
      }
      if (!inventory) return {};
      const problem = staticStateProblem(state, allCpus(inventory), inventory.reserved);
      if (problem !== null) throw new KubeletError('KLT_ERR_CONFIG_INVALID', `start cpu manager error: ${problem}`);
      return assignmentsOfCpuState(state);
    },
    async write(assignments) {
      const state: CpuState = inventory
        ? { policyName: 'static', defaultCpuSet: sharedCpuPool(inventory, assignments), entries: cpuEntriesOf(assignments) }
        : { policyName: ctx.policies.cpu, defaultCpuSet: [], entries: {} };
      await ctx.files.write(path, encodeCpuState(state));
    },
  };
}
