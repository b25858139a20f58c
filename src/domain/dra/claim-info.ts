/**
 * What the kubelet keeps of each claim it prepares (Go: the DRA manager's ClaimInfo cache): the
 * claim, the pods that use it, and per driver the devices its NodePrepareResources answered, with
 * their CDI device ids. One entry per claim, whatever the number of pods sharing it: the claim is
 * prepared once, and unprepared when its last pod is gone. `prepared` is not checkpointed: after a
 * restart every claim is prepared again (the call is idempotent for a driver), as in Go.
 */
import type { ResourceClaim } from './resource-claim.js';
import { claimDrivers } from './pod-claims.js';
import { byCodeUnits } from '../text/code-unit-order.js';

export interface PreparedDevice {
  poolName: string;
  deviceName: string;
  shareId?: string;
  /** The claim's requests this device serves; empty: all of them. */
  requestNames: string[];
  cdiDeviceIds: string[];
}

export interface ClaimInfo {
  claimUid: string;
  claimName: string;
  namespace: string;
  /** The pods that use the claim, sorted. */
  podUids: string[];
  /** Every driver with a result in the allocation, even one that answers no device. */
  drivers: Record<string, { devices: PreparedDevice[] }>;
  prepared: boolean;
}

/** A new entry for an allocated claim (claimRefusal has checked it), not yet prepared. */
export function claimInfoFromClaim(claim: ResourceClaim): ClaimInfo {
  return {
    claimUid: claim.metadata.uid ?? '',
    claimName: claim.metadata.name,
    namespace: claim.metadata.namespace ?? 'default',
    podUids: [],
    drivers: Object.fromEntries(claimDrivers(claim).map((d) => [d, { devices: [] }])),
    prepared: false,
  };
}

export function withPod(info: ClaimInfo, podUid: string): ClaimInfo {
  return info.podUids.includes(podUid) ? info : { ...info, podUids: [...info.podUids, podUid].sort(byCodeUnits) };
}

export function withoutPod(info: ClaimInfo, podUid: string): ClaimInfo {
  return { ...info, podUids: info.podUids.filter((u) => u !== podUid) };
}

/** The entry once its drivers answered: their devices, and prepared. */
export function preparedWith(info: ClaimInfo, devicesByDriver: Readonly<Record<string, readonly PreparedDevice[]>>): ClaimInfo {
  const drivers = Object.fromEntries(Object.keys(info.drivers).map((d) => [d, { devices: [...(devicesByDriver[d] ?? [])] }]));
  return { ...info, drivers, prepared: true };
}

/** The claims grouped by driver: one NodePrepareResources or NodeUnprepareResources call per driver (Go's batches). */
export function driverBatches(infos: readonly ClaimInfo[]): Map<string, { namespace: string; uid: string; name: string }[]> {
  const batches = new Map<string, { namespace: string; uid: string; name: string }[]>();
  for (const info of infos) {
    for (const driver of Object.keys(info.drivers)) {
      const batch = batches.get(driver) ?? [];
      batch.push({ namespace: info.namespace, uid: info.claimUid, name: info.claimName });
      batches.set(driver, batch);
    }
  }
  return batches;
}

/** The claims not prepared yet, grouped by driver. */
export function prepareBatches(infos: readonly ClaimInfo[]): Map<string, { namespace: string; uid: string; name: string }[]> {
  return driverBatches(infos.filter((info) => !info.prepared));
}

/**
 * The CDI device ids a container gets from the claim for `request` (Go's cdiDevicesAsList): every
 * device when the container names no request or a device serves all requests, else the devices
 * serving that request. Drivers in name order, so the runtime sees a stable list.
 */
export function cdiDeviceIds(info: ClaimInfo, request: string | undefined): string[] {
  const ids: string[] = [];
  for (const driver of Object.keys(info.drivers).sort(byCodeUnits)) {
    for (const device of info.drivers[driver]!.devices) {
      if (!request || device.requestNames.length === 0 || device.requestNames.includes(request)) ids.push(...device.cdiDeviceIds);
    }
  }
  return ids;
}

/** A pod the kept claims still name that no longer runs, with the claims to let go of (Go's reconcileLoop). */
export interface StalePodClaims {
  podUid: string;
  namespace: string;
  claimNames: string[];
}

/**
 * The pods the kept claims name that are not among `holders` (the pods that may still run): a pod
 * deleted while the kubelet was down, or whose unprepare failed, is found here and unprepared.
 * Pods and their claims in name order, so the calls made are the same each time.
 */
export function stalePodClaims(infos: readonly ClaimInfo[], holders: ReadonlySet<string>): StalePodClaims[] {
  const stale = new Map<string, StalePodClaims>();
  for (const info of infos) {
    for (const podUid of info.podUids) {
      if (holders.has(podUid)) continue;
      const entry = stale.get(podUid) ?? { podUid, namespace: info.namespace, claimNames: [] };
      entry.claimNames.push(info.claimName);
      stale.set(podUid, entry);
    }
  }
  return [...stale.values()]
    .map((e) => ({ ...e, claimNames: e.claimNames.sort(byCodeUnits) }))
    .sort((a, b) => byCodeUnits(a.podUid, b.podUid));
}
