/**
 * The DRA manager's checkpoint, `dra_manager_state` in the kubelet's root directory, in Go's format
 * (pkg/kubelet/cm/dra/state), so a Go kubelet and kubelet-ts read each other's file:
 *   {"Data":"<JSON text>","Checksum":<CRC-32 (IEEE) of that text's bytes>}
 * where the text is
 *   {"kind":"DRACheckpoint","apiVersion":"checkpoint.dra.kubelet.k8s.io/v1","ClaimInfoStateList":[
 *     {"ClaimUID","ClaimName","Namespace","PodUIDs":{"<uid>":{}},"DriverState":{"<driver>":{"Devices":[
 *       {"PoolName","DeviceName","ShareID","RequestNames","CDIDeviceIDs"}]}}}]}
 * Written as Go's encoding/json writes it (nil lists as null, map keys sorted). A file whose checksum
 * does not match is refused, as Go refuses it.
 */
import { crc32 } from 'node:zlib';
import { goJsonString } from '../device-manager/checkpoint.js';
import { byCodeUnits } from '../text/code-unit-order.js';
import type { ClaimInfo, PreparedDevice } from './claim-info.js';

export const DRA_CHECKPOINT_FILE = 'dra_manager_state';
const KIND = 'DRACheckpoint';
const API_VERSION = 'checkpoint.dra.kubelet.k8s.io/v1';

const list = (items: readonly string[]) => (items.length === 0 ? 'null' : `[${items.join(',')}]`);
const strings = (items: readonly string[]) => list(items.map(goJsonString));

function deviceJson(d: PreparedDevice): string {
  return `{"PoolName":${goJsonString(d.poolName)},"DeviceName":${goJsonString(d.deviceName)},"ShareID":${d.shareId === undefined ? 'null' : goJsonString(d.shareId)},"RequestNames":${strings(d.requestNames)},"CDIDeviceIDs":${strings(d.cdiDeviceIds)}}`;
}

function claimJson(info: ClaimInfo): string {
  const pods = [...info.podUids].sort(byCodeUnits).map((u) => `${goJsonString(u)}:{}`).join(',');
  const drivers = Object.keys(info.drivers).sort(byCodeUnits).map((d) => `${goJsonString(d)}:{"Devices":${list(info.drivers[d]!.devices.map(deviceJson))}}`).join(',');
  return `{"ClaimUID":${goJsonString(info.claimUid)},"ClaimName":${goJsonString(info.claimName)},"Namespace":${goJsonString(info.namespace)},"PodUIDs":{${pods}},"DriverState":{${drivers}}}`;
}

export function encodeClaimCheckpoint(infos: readonly ClaimInfo[]): string {
  const data = `{"kind":"${KIND}","apiVersion":"${API_VERSION}","ClaimInfoStateList":${list(infos.map(claimJson))}}`;
  return `{"Data":${goJsonString(data)},"Checksum":${crc32(Buffer.from(data, 'utf8'))}}`;
}

export type DecodedClaimCheckpoint = { ok: true; claims: ClaimInfo[] } | { ok: false; error: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const stringList = (v: unknown): string[] | null => (v === null || v === undefined ? [] : Array.isArray(v) && v.every((s) => typeof s === 'string') ? v : null);

function deviceOf(v: unknown, where: string): PreparedDevice | string {
  if (!isRecord(v)) return `${where} is not an object`;
  if (typeof v.PoolName !== 'string' || typeof v.DeviceName !== 'string') return `${where} has no PoolName or DeviceName`;
  if (v.ShareID !== null && v.ShareID !== undefined && typeof v.ShareID !== 'string') return `${where}.ShareID is not a string`;
  const requestNames = stringList(v.RequestNames);
  const cdiDeviceIds = stringList(v.CDIDeviceIDs);
  if (!requestNames || !cdiDeviceIds) return `${where} has a RequestNames or CDIDeviceIDs that is not a list of strings`;
  return { poolName: v.PoolName, deviceName: v.DeviceName, ...(typeof v.ShareID === 'string' ? { shareId: v.ShareID } : {}), requestNames, cdiDeviceIds };
}

function claimOf(v: unknown, i: number): ClaimInfo | string {
  const where = `ClaimInfoStateList[${i}]`;
  if (!isRecord(v)) return `${where} is not an object`;
  for (const f of ['ClaimUID', 'ClaimName', 'Namespace'] as const) if (typeof v[f] !== 'string') return `${where}.${f} is not a string`;
  if (v.PodUIDs !== null && v.PodUIDs !== undefined && !isRecord(v.PodUIDs)) return `${where}.PodUIDs is not an object`;
  if (v.DriverState !== null && v.DriverState !== undefined && !isRecord(v.DriverState)) return `${where}.DriverState is not an object`;
  const drivers: ClaimInfo['drivers'] = {};
  for (const [driver, state] of Object.entries((v.DriverState ?? {}) as Record<string, unknown>)) {
    if (!isRecord(state)) return `${where}.DriverState[${driver}] is not an object`;
    if (state.Devices !== null && state.Devices !== undefined && !Array.isArray(state.Devices)) return `${where}.DriverState[${driver}].Devices is not a list`;
    const devices: PreparedDevice[] = [];
    for (const [j, d] of ((state.Devices ?? []) as unknown[]).entries()) {
      const device = deviceOf(d, `${where}.DriverState[${driver}].Devices[${j}]`);
      if (typeof device === 'string') return device;
      devices.push(device);
    }
    drivers[driver] = { devices };
  }
  return {
    claimUid: v.ClaimUID as string,
    claimName: v.ClaimName as string,
    namespace: v.Namespace as string,
    podUids: Object.keys((v.PodUIDs ?? {}) as Record<string, unknown>).sort(byCodeUnits),
    drivers,
    prepared: false,
  };
}

/** Go's UnmarshalCheckpoint and GetClaimInfoStateList: the claims, or what is wrong with the file. */
export function decodeClaimCheckpoint(text: string): DecodedClaimCheckpoint {
  let outer: unknown;
  try {
    outer = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `not JSON: ${(err as Error).message}` };
  }
  if (!isRecord(outer) || typeof outer.Data !== 'string' || typeof outer.Checksum !== 'number') return { ok: false, error: 'not a checkpoint: Data (text) and Checksum (number) expected' };
  const actual = crc32(Buffer.from(outer.Data, 'utf8'));
  if (actual !== outer.Checksum) return { ok: false, error: `checkpoint is corrupted: checksum ${outer.Checksum}, its data's is ${actual}` };
  let data: unknown;
  try {
    data = JSON.parse(outer.Data);
  } catch (err) {
    return { ok: false, error: `Data is not JSON: ${(err as Error).message}` };
  }
  if (!isRecord(data)) return { ok: false, error: 'Data is not an object' };
  if (data.ClaimInfoStateList !== null && data.ClaimInfoStateList !== undefined && !Array.isArray(data.ClaimInfoStateList)) return { ok: false, error: 'ClaimInfoStateList is not a list' };
  const claims: ClaimInfo[] = [];
  for (const [i, v] of ((data.ClaimInfoStateList ?? []) as unknown[]).entries()) {
    const claim = claimOf(v, i);
    if (typeof claim === 'string') return { ok: false, error: claim };
    claims.push(claim);
  }
  return { ok: true, claims };
}
