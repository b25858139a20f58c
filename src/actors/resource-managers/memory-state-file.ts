/**
 * The memory manager's state file `<root-dir>/memory_manager_state` (Go's memorymanager state
 * checkpoint): read at start-up into the containers' memory shares (a file it refuses stops the
 * kubelet), then written whole after every change of the assignments (and at start-up, as every
 * state file is).
 */
import { join } from 'node:path';
import { KubeletError } from '../../domain/errors.js';
import type { Assignments } from '../../domain/resource-managers/assignments.js';
import { MEMORY_MANAGER_STATE_FILE } from '../../domain/resource-managers/memory-state-file.js';
import { memoryStateFileText, restoreMemoryState } from '../../domain/resource-managers/memory/restore.js';
import type { PodMemoryShares } from '../../domain/resource-managers/memory/static-policy.js';
import { MEMORY_MANAGER_STATE_MAX_BYTES } from '../../domain/resource-managers/state-file-limits.js';
import type { StateFile, StateFileContext } from './state-files.js';

function sharesOf(assignments: Assignments): Record<string, PodMemoryShares> {
  return Object.fromEntries(Object.entries(assignments).map(([uid, pod]) => [uid, Object.fromEntries(Object.entries(pod).map(([name, a]) => [name, a.memory]))]));
}

export function memoryStateFile(ctx: StateFileContext): StateFile {
  const path = join(ctx.rootDir, MEMORY_MANAGER_STATE_FILE);
  const inventory = ctx.inventory.memory;
  return {
    name: MEMORY_MANAGER_STATE_FILE,
    async read() {
      const restored = restoreMemoryState(await ctx.files.read(path, MEMORY_MANAGER_STATE_MAX_BYTES), inventory, path);
      if (!restored.ok) throw new KubeletError('KLT_ERR_CONFIG_INVALID', restored.message);
      return Object.fromEntries(Object.entries(restored.shares).map(([uid, pod]) => [uid, Object.fromEntries(Object.entries(pod).map(([name, memory]) => [name, { memory }]))]));
    },
    async write(assignments) {
      await ctx.files.write(path, memoryStateFileText(inventory, sharesOf(assignments)));
    },
  };
}
