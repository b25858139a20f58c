/**
 * What a container gets from the device plugins of its devices: each plugin's Allocate answer for
 * the container, merged as Go merges them (pkg/kubelet/cm/devicemanager/pod_devices.go,
 * deviceRunContainerOptions): resources in name order, and within them the first setting of an
 * environment variable, a device's or a mount's container path, or an annotation wins; a later one
 * for the same key is dropped (Go logs a conflict). The runtime manager puts these before the
 * container's own environment, mounts and devices, as Go's GenerateRunContainerOptions does.
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

export function mergeAllocations(byResource: Readonly<Record<string, ContainerAllocation>>): ContainerDeviceRuntime {
  const out: ContainerDeviceRuntime = { envs: {}, mounts: [], devices: [], annotations: {}, cdiDevices: [] };
  for (const resource of Object.keys(byResource).sort()) {
    const a = byResource[resource]!;
    for (const [k, v] of Object.entries(a.envs)) if (!(k in out.envs)) out.envs[k] = v;
    for (const d of a.devices) if (!out.devices.some((x) => x.containerPath === d.containerPath)) out.devices.push(d);
    for (const m of a.mounts) if (!out.mounts.some((x) => x.containerPath === m.containerPath)) out.mounts.push(m);
    for (const [k, v] of Object.entries(a.annotations)) if (!(k in out.annotations)) out.annotations[k] = v;
    for (const c of a.cdiDevices) if (!out.cdiDevices.includes(c)) out.cdiDevices.push(c);
  }
  return out;
}
