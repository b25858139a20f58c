/**
 * The device manager's checkpoint, `kubelet_internal_checkpoint` in the device-plugins directory,
 * in Go's format (pkg/kubelet/cm/devicemanager/checkpoint: Data{Data: checkpointData, Checksum}),
 * so a Go kubelet and kubelet-ts read each other's file:
 *   {"Data":{"PodDeviceEntries":[{"PodUID","ContainerName","ResourceName","DeviceIDs":{"<numa>":[ids]},
 *    "AllocResp":"<base64 ContainerAllocateResponse>"}],"RegisteredDevices":{"<resource>":[ids]}},
 *    "Checksum":<fnv32a>}
 * DeviceIDs are keyed by NUMA node, -1 for a device without topology. The checksum is Go's
 * checksum.New: fnv32a over go-spew's `%#v` of the data (checkpoint-checksum.ts). A file whose
 * checksum does not match is refused, as Go refuses it ("checkpoint is corrupted").
 */
import { checkpointChecksum } from './checkpoint-checksum.js';

/** NUMA node id for a device the plugin gave no topology (Go: nodeWithoutTopology). */
export const NODE_WITHOUT_TOPOLOGY = -1;

export interface PodDevicesEntry {
  podUid: string;
  containerName: string;
  resourceName: string;
  /** Device ids by NUMA node (NODE_WITHOUT_TOPOLOGY for none). */
  deviceIds: Record<string, string[]>;
  /** The plugin's Allocate answer for the container, protobuf bytes in base64; null: none kept. */
  allocResp: string | null;
}

export interface DeviceCheckpoint {
  entries: PodDevicesEntry[];
  /** Per resource, its healthy devices when written (Go's RegisteredDevices). */
  registeredDevices: Record<string, string[]>;
}

/** Go's encoding/json string: JSON with <, >, & and the two line separators escaped. */
export function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const sortedKeys = (o: Record<string, unknown>) => Object.keys(o).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const stringList = (ids: readonly string[]) => `[${ids.map(goJsonString).join(',')}]`;
/** A Go map as encoding/json writes it: keys as strings, sorted as strings. */
const goMap = (m: Record<string, string[]>) => `{${sortedKeys(m).map((k) => `${goJsonString(k)}:${stringList(m[k]!)}`).join(',')}}`;

export function encodeDeviceCheckpoint(cp: DeviceCheckpoint): string {
  const entries = cp.entries.length === 0 ? 'null' : `[${cp.entries.map((e) => [
    `{"PodUID":${goJsonString(e.podUid)}`,
    `"ContainerName":${goJsonString(e.containerName)}`,
    `"ResourceName":${goJsonString(e.resourceName)}`,
    `"DeviceIDs":${goMap(e.deviceIds)}`,
    `"AllocResp":${e.allocResp === null ? 'null' : goJsonString(e.allocResp)}}`,
  ].join(',')).join(',')}]`;
  return `{"Data":{"PodDeviceEntries":${entries},"RegisteredDevices":${goMap(cp.registeredDevices)}},"Checksum":${checkpointChecksum(cp)}}`;
}

export type DecodedCheckpoint = { ok: true; checkpoint: DeviceCheckpoint } | { ok: false; error: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

function stringListMap(v: unknown, what: string): Record<string, string[]> | string {
  if (v === null || v === undefined) return {};
  if (!isRecord(v)) return `${what} is not an object`;
  const out: Record<string, string[]> = {};
  for (const [k, ids] of Object.entries(v)) {
    if (ids === null) out[k] = [];
    else if (isStringList(ids)) out[k] = ids;
    else return `${what}[${k}] is not a list of strings`;
  }
  return out;
}

function entryOf(v: unknown, i: number): PodDevicesEntry | string {
  if (!isRecord(v)) return `PodDeviceEntries[${i}] is not an object`;
  for (const f of ['PodUID', 'ContainerName', 'ResourceName'] as const) {
    if (typeof v[f] !== 'string') return `PodDeviceEntries[${i}].${f} is not a string`;
  }
  const ids = stringListMap(v.DeviceIDs, `PodDeviceEntries[${i}].DeviceIDs`);
  if (typeof ids === 'string') return ids;
  if (Object.keys(ids).some((k) => !/^-?\d+$/.test(k))) return `PodDeviceEntries[${i}].DeviceIDs has a key that is not a NUMA node id`;
  if (v.AllocResp !== null && v.AllocResp !== undefined && typeof v.AllocResp !== 'string') return `PodDeviceEntries[${i}].AllocResp is not base64 text`;
  return {
    podUid: v.PodUID as string,
    containerName: v.ContainerName as string,
    resourceName: v.ResourceName as string,
    deviceIds: ids,
    allocResp: typeof v.AllocResp === 'string' ? v.AllocResp : null,
  };
}

/** The file's text back, its checksum verified; an error names what is wrong. */
export function decodeDeviceCheckpoint(text: string): DecodedCheckpoint {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `not JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!isRecord(parsed) || !isRecord(parsed.Data)) return { ok: false, error: 'no "Data" object' };
  if (typeof parsed.Checksum !== 'number') return { ok: false, error: 'no numeric "Checksum"' };
  const rawEntries = parsed.Data.PodDeviceEntries ?? [];
  if (!Array.isArray(rawEntries)) return { ok: false, error: 'PodDeviceEntries is not a list' };
  const entries: PodDevicesEntry[] = [];
  for (const [i, raw] of rawEntries.entries()) {
    const e = entryOf(raw, i);
    if (typeof e === 'string') return { ok: false, error: e };
    entries.push(e);
  }
  const registeredDevices = stringListMap(parsed.Data.RegisteredDevices, 'RegisteredDevices');
  if (typeof registeredDevices === 'string') return { ok: false, error: registeredDevices };
  const checkpoint = { entries, registeredDevices };
  if (checkpointChecksum(checkpoint) !== parsed.Checksum) return { ok: false, error: 'checkpoint is corrupted (checksum mismatch)' };
  return { ok: true, checkpoint };
}
