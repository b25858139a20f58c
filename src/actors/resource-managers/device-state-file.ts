/**
 * The device manager's state file, `kubelet_internal_checkpoint` in the device-plugins directory
 * (Go's, with its format and checksum: domain/device-manager/checkpoint.ts). Read at start-up, its
 * entries become the containers' device assignments; written after every change of the
 * assignments, the containers holding devices are what it keeps (with each one's Allocate answer
 * once asked, and the devices registered).
 */
import type { Assignments } from '../../domain/resource-managers/assignments.js';
import type { ContainerDeviceAllocator, DeviceCheckpointReader } from '../../ports/device-plugins.js';
import type { StateFile } from './state-files.js';

export interface DeviceStateFileContext {
  /** The device-plugins directory. */
  dir: string;
  store: Pick<ContainerDeviceAllocator, 'setHeld'> & DeviceCheckpointReader;
}

/** The containers' devices, by pod uid, container and resource. */
export function heldDevices(assignments: Assignments): Record<string, Record<string, Record<string, string[]>>> {
  const held: Record<string, Record<string, Record<string, string[]>>> = {};
  for (const [uid, pod] of Object.entries(assignments)) {
    for (const [name, share] of Object.entries(pod)) {
      if (share.devices && Object.keys(share.devices).length > 0) (held[uid] ??= {})[name] = share.devices;
    }
  }
  return held;
}

export function deviceStateFile(ctx: DeviceStateFileContext): StateFile {
  return {
    name: 'kubelet_internal_checkpoint',
    async read() {
      // Go goes on without a checkpoint it cannot use (the device manager's input logs why).
      const checkpoint = await ctx.store.read(ctx.dir).catch(() => null);
      const assignments: Assignments = {};
      for (const e of checkpoint?.entries ?? []) {
        const ids = [...new Set(Object.values(e.deviceIds).flat())].sort();
        const pod = (assignments[e.podUid] ??= {});
        const share = (pod[e.containerName] ??= {});
        share.devices = { ...(share.devices ?? {}), [e.resourceName]: ids };
      }
      return assignments;
    },
    async write(assignments) {
      ctx.store.setHeld(heldDevices(assignments));
    },
  };
}
