/**
 * The DRA claim manager's checkpoint in `<root-dir>/dra_manager_state` (Go's path), read within its
 * size bound and replaced whole on each write, through the kubelet's checkpoint files.
 */
import { join } from 'node:path';
import { DRA_CHECKPOINT_FILE } from '../../domain/dra/claim-checkpoint.js';
import { DRA_MANAGER_STATE_MAX_BYTES } from '../../domain/resource-managers/state-file-limits.js';
import type { ClaimCheckpointStore } from '../../ports/dra-claims.js';
import type { CheckpointFiles } from '../../ports/resource-managers.js';

export function claimCheckpointFile(rootDir: string, files: CheckpointFiles): ClaimCheckpointStore {
  const path = join(rootDir, DRA_CHECKPOINT_FILE);
  return {
    read: async () => (await files.read(path, DRA_MANAGER_STATE_MAX_BYTES)) ?? undefined,
    write: (text) => files.write(path, text),
  };
}
