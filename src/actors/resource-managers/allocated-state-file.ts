/**
 * The allocation checkpoint `<root-dir>/allocated_pods_state`, read at start-up into the pods'
 * allocations and written after every change of them. A file it cannot read is reported and
 * started without, as Go's allocation manager falls back to an empty state: a lost allocation
 * only means a pending resize is weighed again.
 */
import { join } from 'node:path';
import { ALLOCATED_PODS_STATE_FILE, decodeAllocatedPods, encodeAllocatedPods } from '../../domain/resource-managers/allocated-state-file.js';
import type { Assignments } from '../../domain/resource-managers/assignments.js';
import { allocationsOf, withAllocation } from '../../domain/resize/allocation-assignments.js';
import { POD_RESOURCES_STATE_MAX_BYTES } from '../../domain/resource-managers/state-file-limits.js';
import type { StateFile, StateFileContext } from './state-files.js';

export function allocatedStateFile(ctx: StateFileContext): StateFile {
  const path = join(ctx.rootDir, ALLOCATED_PODS_STATE_FILE);
  let lastWritten: string | null = null;
  return {
    name: ALLOCATED_PODS_STATE_FILE,
    async read() {
      try {
        const text = await ctx.files.read(path, POD_RESOURCES_STATE_MAX_BYTES);
        if (text === null) return {};
        const pods = decodeAllocatedPods(text);
        return Object.fromEntries(Object.entries(pods).map(([uid, allocation]) => [uid, withAllocation({}, allocation)])) satisfies Assignments;
      } catch (err) {
        ctx.warn?.(`Failed to read the allocation checkpoint ${path}, starting without it: ${(err as Error).message}`);
        return {};
      }
    },
    async write(assignments) {
      const text = encodeAllocatedPods(allocationsOf(assignments));
      // Most changes of the assignments are not allocations: the file is left as it is then.
      if (text === lastWritten) return;
      await ctx.files.write(path, text);
      lastWritten = text;
    },
  };
}
