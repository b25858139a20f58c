/**
 * What each container was last started or updated with (Go's kuberuntime actuatedState): held in
 * memory, every change written through to `<root-dir>/actuated_pods_state` (actuated-state-file.ts)
 * so a restarted kubelet neither repeats a resize nor restarts a container for one already applied.
 *
 * Opened once when the runtime manager is built: a file that cannot be read or verified stops the
 * start with an error naming it, as Go's NewStateCheckpoint does. Writes go one after the other, in
 * the order of the changes; a write that fails rejects its caller (the step that recorded it fails
 * and is retried at the next sync), and the next change writes the whole state again.
 */
import { join } from 'node:path';
import { KubeletError } from '../../domain/errors.js';
import type { ResourceAmounts } from '../../domain/runtime/actuated-resources.js';
import { ACTUATED_PODS_STATE_FILE, decodeActuatedPods, encodeActuatedPods, type ActuatedPods } from '../../domain/runtime/actuated-state-file.js';
import { POD_RESOURCES_STATE_MAX_BYTES } from '../../domain/resource-managers/state-file-limits.js';
import type { CheckpointFiles } from '../../ports/resource-managers.js';

export interface ActuatedState {
  /** The pod's containers' amounts by name; undefined when the pod has none recorded. */
  containers(podUid: string): Readonly<Record<string, ResourceAmounts>> | undefined;
  set(podUid: string, containerName: string, amounts: ResourceAmounts): Promise<void>;
  removePod(podUid: string): Promise<void>;
  podUids(): string[];
}

/** The state over `persist` (called with the whole state after each change), starting from `initial`. */
export function actuatedState(initial: ActuatedPods = {}, persist: (pods: ActuatedPods) => Promise<void> = async () => {}): ActuatedState {
  const pods: ActuatedPods = structuredClone(initial);
  let writes: Promise<void> = Promise.resolve();
  const write = () => {
    const snapshot = structuredClone(pods);
    const next = writes.catch(() => {}).then(() => persist(snapshot));
    writes = next;
    return next;
  };
  return {
    containers: (uid) => pods[uid],
    async set(uid, name, amounts) {
      const current = pods[uid]?.[name];
      if (current && JSON.stringify(current) === JSON.stringify(amounts)) return;
      pods[uid] = { ...pods[uid], [name]: { ...amounts } };
      await write();
    },
    async removePod(uid) {
      if (!(uid in pods)) return;
      delete pods[uid];
      await write();
    },
    podUids: () => Object.keys(pods),
  };
}

/** Reads the file under `rootDir` (none yet: an empty state) and answers the state writing to it. */
export async function openActuatedState(files: CheckpointFiles, rootDir: string): Promise<ActuatedState> {
  const path = join(rootDir, ACTUATED_PODS_STATE_FILE);
  const text = await files.read(path, POD_RESOURCES_STATE_MAX_BYTES);
  let initial: ActuatedPods = {};
  if (text !== null) {
    try {
      initial = decodeActuatedPods(text);
    } catch (err) {
      throw new KubeletError('KLT_ERR_CONFIG_INVALID',
        `could not restore state from checkpoint ${path}: ${(err as Error).message}; drain this node and delete the file before restarting the kubelet`, { cause: err });
    }
  }
  return actuatedState(initial, (pods) => files.write(path, encodeActuatedPods(pods)));
}
