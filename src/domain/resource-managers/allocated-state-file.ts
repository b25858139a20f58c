/**
 * The allocation checkpoint `allocated_pods_state` (Go: allocation/state/checkpoint.go): a JSON
 * object whose `data` is itself JSON, `{"entries":{<uid>:{"ContainerResources":{<name>:{limits,
 * requests}},"PodLevelResources":null}}}`, and whose `checksum` is Go's checksum of that string. Go
 * keeps every admitted pod there; kubelet-ts keeps only the pods whose allocation can trail their
 * spec (resize/allocation.ts), which Go reads as the others being allocated what they ask.
 */
import type { PodAllocation } from '../resize/allocation.js';
import type { ResourceList, ResourceRequirements } from '../pod/types.js';
import { goChecksum, goString } from './go-checksum.js';

export const ALLOCATED_PODS_STATE_FILE = 'allocated_pods_state';

/** Allocations by pod uid. */
export type AllocatedPods = Record<string, PodAllocation>;

const sortedKeys = <T>(record: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Go's encoding of a ResourceRequirements: empty lists left out, map keys sorted. */
function requirementsJson(r: ResourceRequirements): Record<string, ResourceList> {
  return {
    ...(r.limits && Object.keys(r.limits).length > 0 ? { limits: sortedKeys(r.limits) } : {}),
    ...(r.requests && Object.keys(r.requests).length > 0 ? { requests: sortedKeys(r.requests) } : {}),
  };
}

function checksumOf(data: string): number {
  return goChecksum(goString('string', data));
}

export function encodeAllocatedPods(pods: AllocatedPods): string {
  const entries = sortedKeys(Object.fromEntries(Object.entries(pods).map(([uid, allocation]) => [uid, {
    ContainerResources: sortedKeys(Object.fromEntries(Object.entries(allocation).map(([name, r]) => [name, requirementsJson(r)]))),
    PodLevelResources: null,
  }])));
  const data = JSON.stringify(Object.keys(entries).length > 0 ? { entries } : {});
  return JSON.stringify({ data, checksum: checksumOf(data) });
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function resourceList(v: unknown, where: string): ResourceList | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isRecord(v) || !Object.values(v).every((q) => typeof q === 'string')) throw new Error(`${where} is not a list of quantities`);
  return v as ResourceList;
}

/** The allocations a file holds; throws naming what is wrong (the caller names the file). */
export function decodeAllocatedPods(text: string): AllocatedPods {
  let outer: unknown;
  try {
    outer = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON: ${(error as Error).message}`);
  }
  if (!isRecord(outer) || typeof outer['data'] !== 'string' || typeof outer['checksum'] !== 'number') throw new Error('expected {"data": string, "checksum": number}');
  const data = outer['data'];
  if (checksumOf(data) !== outer['checksum']) throw new Error('checkpoint is corrupted: the checksum does not match its data');
  let inner: unknown;
  try {
    inner = JSON.parse(data);
  } catch (error) {
    throw new Error(`data is not JSON: ${(error as Error).message}`);
  }
  const entries = isRecord(inner) ? (inner['entries'] ?? {}) : null;
  if (!isRecord(entries)) throw new Error('data.entries is not an object');
  const pods: AllocatedPods = {};
  for (const [uid, info] of Object.entries(entries)) {
    const containers = isRecord(info) ? (info['ContainerResources'] ?? {}) : null;
    if (!isRecord(containers)) throw new Error(`entries["${uid}"].ContainerResources is not an object`);
    const allocation: PodAllocation = {};
    for (const [name, r] of Object.entries(containers)) {
      const where = `entries["${uid}"].ContainerResources["${name}"]`;
      if (!isRecord(r)) throw new Error(`${where} is not an object`);
      const limits = resourceList(r['limits'], `${where}.limits`);
      const requests = resourceList(r['requests'], `${where}.requests`);
      allocation[name] = { ...(limits ? { limits } : {}), ...(requests ? { requests } : {}) };
    }
    pods[uid] = allocation;
  }
  return pods;
}
