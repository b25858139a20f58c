/**
 * What a container gets from the device plugins of its devices: each plugin's Allocate answer for
 * the container, merged as Go merges them (pkg/kubelet/cm/devicemanager/pod_devices.go,
 * deviceRunContainerOptions): resources in name order, and within them the first setting of an
 * environment variable, a device's or a mount's container path, or an annotation wins; a later one
 * for the same key is dropped, and reported as a conflict when its value (the host path for devices
 * and mounts) differs, which Go logs as an error. CDI devices are kept once by name. The runtime
 * manager puts these before the container's own environment, mounts and devices, as Go's
 * GenerateRunContainerOptions does.
 * Keys are looked up in Maps, as Go's maps: the merge is linear in the answers' entries, so a
 * plugin's long answer costs its length, not its length squared.
 */

export interface DeviceMount { containerPath: string; hostPath: string; readOnly: boolean }
export interface DeviceNode { containerPath: string; hostPath: string; permissions: string }

/** One plugin's Allocate answer for one container. */
export interface ContainerAllocation {
  envs: Record<string, string>;
  mounts: DeviceMount[];
  devices: DeviceNode[];
  annotations: Record<string, string>;
  /** Fully qualified CDI device names. */
  cdiDevices: string[];
}

/** Everything the container's device plugins answered, merged: what its CRI config gets. */
export type ContainerDeviceRuntime = ContainerAllocation;

export const NO_DEVICE_RUNTIME: ContainerDeviceRuntime = { envs: {}, mounts: [], devices: [], annotations: {}, cdiDevices: [] };

/** A later setting dropped for a key an earlier one set to another value. */
export interface AllocationConflict {
  /** The resource whose answer's setting was dropped. */
  resource: string;
  kind: 'env' | 'device' | 'mount' | 'annotation';
  /** The variable's or annotation's name, or the container path. */
  key: string;
  kept: string;
  dropped: string;
}

export interface MergedAllocations { runtime: ContainerDeviceRuntime; conflicts: AllocationConflict[] }

export function mergeAllocations(byResource: Readonly<Record<string, ContainerAllocation>>): MergedAllocations {
  const envs = new Map<string, string>();
  const annotations = new Map<string, string>();
  const deviceHosts = new Map<string, string>();
  const mountHosts = new Map<string, string>();
  const cdiDevices = new Set<string>();
  const devices: DeviceNode[] = [];
  const mounts: DeviceMount[] = [];
  const conflicts: AllocationConflict[] = [];
  const isFirst = (resource: string, kind: AllocationConflict['kind'], seen: Map<string, string>, key: string, value: string): boolean => {
    const kept = seen.get(key);
    if (kept === undefined) {
      seen.set(key, value);
      return true;
    }
    if (kept !== value) conflicts.push({ resource, kind, key, kept, dropped: value });
    return false;
  };
  for (const resource of Object.keys(byResource).sort()) {
    const a = byResource[resource]!;
    for (const [k, v] of Object.entries(a.envs)) isFirst(resource, 'env', envs, k, v);
    for (const d of a.devices) if (isFirst(resource, 'device', deviceHosts, d.containerPath, d.hostPath)) devices.push(d);
    for (const m of a.mounts) if (isFirst(resource, 'mount', mountHosts, m.containerPath, m.hostPath)) mounts.push(m);
    for (const [k, v] of Object.entries(a.annotations)) isFirst(resource, 'annotation', annotations, k, v);
    for (const c of a.cdiDevices) cdiDevices.add(c);
  }
  // fromEntries defines own properties: a key such as `__proto__` stays a variable, not a prototype.
  const runtime = { envs: Object.fromEntries(envs), mounts, devices, annotations: Object.fromEntries(annotations), cdiDevices: [...cdiDevices] };
  return { runtime, conflicts };
}
