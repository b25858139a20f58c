/**
 * Go's checksum of the device manager's checkpoint (pkg/kubelet/checkpointmanager/checksum over
 * hashutil.DeepHashObject): fnv32a over go-spew's `%#v` rendering of the checkpointData value, with
 * spew's settings there (sorted map keys, methods not called). For this one type the rendering is:
 *   (checkpoint.checkpointData){PodDeviceEntries:([]checkpoint.PodDevicesEntry)[{PodUID:(string)…
 *   ContainerName:(string)… ResourceName:(string)… DeviceIDs:(checkpoint.DevicesPerNUMA)map[-1:[Dev-1]]
 *   AllocResp:([]uint8)[10 …]}] RegisteredDevices:(map[string][]string)map[example.com/resource:[Dev-1 Dev-2]]}
 * spew prints a value's type only where it is not an element of a slice or map, strings bare, a nil
 * slice or map as <nil>, and int map keys in numeric order.
 */
import type { DeviceCheckpoint } from './checkpoint.js';

/** FNV-1a, 32 bits, over UTF-8 bytes. */
export function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

const list = (ids: readonly string[]) => `[${ids.join(' ')}]`;
const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function bytesOf(base64: string | null): string {
  if (base64 === null) return '<nil>';
  return `[${[...Buffer.from(base64, 'base64')].join(' ')}]`;
}

/** go-spew's `%#v` of the checkpoint's data, as Go hashes it. */
export function spewCheckpointData(cp: DeviceCheckpoint): string {
  const entries = cp.entries.length === 0 ? '<nil>' : `[${cp.entries.map((e) => {
    const numa = Object.keys(e.deviceIds).sort((a, b) => Number(a) - Number(b)).map((k) => `${Number(k)}:${list(e.deviceIds[k]!)}`).join(' ');
    return `{PodUID:(string)${e.podUid} ContainerName:(string)${e.containerName} ResourceName:(string)${e.resourceName} `
      + `DeviceIDs:(checkpoint.DevicesPerNUMA)map[${numa}] AllocResp:([]uint8)${bytesOf(e.allocResp)}}`;
  }).join(' ')}]`;
  const registered = Object.keys(cp.registeredDevices).sort(byString).map((k) => `${k}:${list(cp.registeredDevices[k]!)}`).join(' ');
  return `(checkpoint.checkpointData){PodDeviceEntries:([]checkpoint.PodDevicesEntry)${entries} RegisteredDevices:(map[string][]string)map[${registered}]}`;
}

export function checkpointChecksum(cp: DeviceCheckpoint): number {
  return fnv32a(spewCheckpointData(cp));
}
