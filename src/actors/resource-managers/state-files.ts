/**
 * The resource managers' state files, in one place: each manager registers its file here (its pure
 * encoder/decoder lives in domain/resource-managers/<x>-state-file.ts). At start-up (the container
 * manager's start) each is read into the initial assignments, and each is written again after every
 * change of the assignments (the `resourceManagers` effect). The pods' allocations (resize) ride along.
 */
import type { Assignments, ContainerAssignment } from '../../domain/resource-managers/assignments.js';
import type { ResourceInventory } from '../../domain/resource-managers/inventory.js';
import type { CheckpointFiles } from '../../ports/resource-managers.js';
import { allocatedStateFile } from './allocated-state-file.js';
import { cpuStateFile } from './cpu-state-file.js';
import { memoryStateFile } from './memory-state-file.js';
import { deviceStateFile, type DeviceStateFileContext } from './device-state-file.js';

export interface StateFile {
  /** The file's name, for logs. */
  name: string;
  /**
   * Its part of the assignments; none when the file does not exist. Throws a KubeletError when the
   * file is refused (a corrupt checksum, a policy that changed): the kubelet then does not start.
   */
  read(): Promise<Assignments>;
  /** Writes every assignment now (the file keeps its manager's part). */
  write(assignments: Assignments): Promise<void>;
}

export interface StateFileContext {
  /** --root-dir: the files live under it (Go's fixed names in the kubelet's root). */
  rootDir: string;
  inventory: ResourceInventory;
  /** The configured policies, which a state file names. */
  policies: { cpu: string; memory: string };
  files: CheckpointFiles;
  /** The device manager's checkpoint, in its own directory (Go's fixed path, or --device-plugins-dir). */
  devices?: DeviceStateFileContext;
  /** Where a file that is reported and set aside (not refused) is reported. */
  warn?: (message: string) => void;
}

/** Every resource manager's state file, for this configuration. */
export function resourceStateFiles(ctx: StateFileContext): StateFile[] {
  return [...(ctx.devices ? [deviceStateFile(ctx.devices)] : []), cpuStateFile(ctx), memoryStateFile(ctx), allocatedStateFile(ctx)];
}

/** Each container's shares from every file, together. */
export function mergeAssignments(parts: readonly Assignments[]): Assignments {
  const merged: Assignments = {};
  for (const part of parts) {
    for (const [uid, pod] of Object.entries(part)) {
      const into = { ...(merged[uid] ?? {}) };
      for (const [name, share] of Object.entries(pod)) into[name] = { ...(into[name] ?? {}), ...share } satisfies ContainerAssignment;
      merged[uid] = into;
    }
  }
  return merged;
}

/** The start-up read: every file's part, together. */
export async function readStateFiles(files: readonly StateFile[]): Promise<Assignments> {
  const parts: Assignments[] = [];
  for (const file of files) parts.push(await file.read());
  return mergeAssignments(parts);
}
