/**
 * Go's checksum of the device manager's checkpoint (pkg/kubelet/checkpointmanager/checksum over
 * hashutil.DeepHashObject): the shared go-spew printer (resource-managers/go-checksum.ts) over the
 * checkpointData value described with its Go types. For this one type the rendering is:
 *   (checkpoint.checkpointData){PodDeviceEntries:([]checkpoint.PodDevicesEntry)[{PodUID:(string)…
 *   ContainerName:(string)… ResourceName:(string)… DeviceIDs:(checkpoint.DevicesPerNUMA)map[-1:[Dev-1]]
 *   AllocResp:([]uint8)[10 …]}] RegisteredDevices:(map[string][]string)map[example.com/resource:[Dev-1 Dev-2]]}
 */
import { goChecksum, goInt, goString, spewFormat, type GoValue } from '../resource-managers/go-checksum.js';
import type { DeviceCheckpoint, PodDevicesEntry } from './checkpoint.js';

export { fnv32a } from '../resource-managers/go-checksum.js';

const strings = (type: string, ids: readonly string[]): GoValue => ({ kind: 'slice', type, items: ids.map((id) => goString('string', id)) });

function bytes(base64: string | null): GoValue {
  return { kind: 'slice', type: '[]uint8', items: base64 === null ? null : [...Buffer.from(base64, 'base64')].map((b) => goInt('uint8', b)) };
}

function entryValue(e: PodDevicesEntry): GoValue {
  return {
    kind: 'struct',
    type: 'checkpoint.PodDevicesEntry',
    fields: [
      ['PodUID', goString('string', e.podUid)],
      ['ContainerName', goString('string', e.containerName)],
      ['ResourceName', goString('string', e.resourceName)],
      ['DeviceIDs', { kind: 'map', type: 'checkpoint.DevicesPerNUMA', entries: Object.entries(e.deviceIds).map(([numa, ids]) => [{ kind: 'int', type: 'int64', value: Number(numa) }, strings('[]string', ids)]) }],
      ['AllocResp', bytes(e.allocResp)],
    ],
  };
}

function checkpointValue(cp: DeviceCheckpoint): GoValue {
  return {
    kind: 'struct',
    type: 'checkpoint.checkpointData',
    fields: [
      ['PodDeviceEntries', { kind: 'slice', type: '[]checkpoint.PodDevicesEntry', items: cp.entries.length === 0 ? null : cp.entries.map(entryValue) }],
      ['RegisteredDevices', { kind: 'map', type: 'map[string][]string', entries: Object.entries(cp.registeredDevices).map(([name, ids]) => [{ kind: 'string', type: 'string', value: name }, strings('[]string', ids)]) }],
    ],
  };
}

/** go-spew's `%#v` of the checkpoint's data, as Go hashes it. */
export function spewCheckpointData(cp: DeviceCheckpoint): string {
  return spewFormat(checkpointValue(cp));
}

export function checkpointChecksum(cp: DeviceCheckpoint): number {
  return goChecksum(checkpointValue(cp));
}
