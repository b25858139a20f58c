/**
 * A container's cgroup, when its sandbox names a cgroup_parent (the kubelet's pod cgroup): as runc
 * does for containerd, the container gets `<cgroup_parent>/<container id>` in every hierarchy, set
 * to its linux.resources (cpu shares, cfs quota and period, memory limit, the CPU manager's cpuset), and its process joins it
 * before it runs the container's command (the shim's cgroup join, shim.ts), so everything it forks
 * is counted and limited there. An exit the kernel's OOM killer caused is reported `OOMKilled`, as
 * containerd does. Without a cgroup_parent nothing here runs: the container stays a plain process.
 */
import type { NumericSetting, ResourceConfig } from '../../../domain/cgroups/resource-config.js';
import type { LinuxContainerResources, LinuxContainerResources__Output } from '../../../generated/runtime/v1/LinuxContainerResources.js';
import type { ContainerRecord, SandboxRecord } from '../state/records.js';
import type { RuntimeState } from '../state/runtime-state.js';

/** CRI's linux.resources as cgroup settings; 0 (CRI's "unset") leaves a setting out. */
export function containerResources(resources: LinuxContainerResources__Output | null | undefined): ResourceConfig | undefined {
  if (!resources) return undefined;
  const positive = (text: string | undefined) => {
    const n = Number(text ?? 0);
    return Number.isFinite(n) && n > 0 ? n : undefined;
  };
  const out: ResourceConfig = {};
  const set = (key: NumericSetting, value: number | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  set('cpuShares', positive(resources.cpu_shares));
  set('cpuPeriod', positive(resources.cpu_period));
  set('cpuQuota', positive(resources.cpu_quota));
  set('memoryLimitBytes', positive(resources.memory_limit_in_bytes));
  if (resources.cpuset_cpus) out.cpusetCpus = resources.cpuset_cpus;
  if (resources.cpuset_mems) out.cpusetMems = resources.cpuset_mems;
  return out;
}

/**
 * What ContainerStatus reports of the container's resources, as containerd does (the settings it
 * was created or last updated with): the kubelet reads them for a container it holds no resize
 * record for. Null when it was given none.
 */
export function reportedResources(resources: ResourceConfig | undefined): { linux: LinuxContainerResources } | null {
  if (!resources) return null;
  const linux: LinuxContainerResources = {};
  if (resources.cpuShares !== undefined) linux.cpu_shares = String(resources.cpuShares);
  if (resources.cpuQuota !== undefined) linux.cpu_quota = String(resources.cpuQuota);
  if (resources.cpuPeriod !== undefined) linux.cpu_period = String(resources.cpuPeriod);
  if (resources.memoryLimitBytes !== undefined) linux.memory_limit_in_bytes = String(resources.memoryLimitBytes);
  if (resources.cpusetCpus !== undefined) linux.cpuset_cpus = resources.cpusetCpus;
  if (resources.cpusetMems !== undefined) linux.cpuset_mems = resources.cpusetMems;
  return { linux };
}

/** Creates the container's cgroup under the sandbox's parent; answers the cgroup.procs files its process must join. */
export async function makeContainerCgroup(state: RuntimeState, sandbox: SandboxRecord, container: ContainerRecord): Promise<string[]> {
  if (!sandbox.cgroup_parent) return [];
  const cgroups = await state.cgroups();
  const path = `${sandbox.cgroup_parent.replace(/\/+$/, '')}/${container.id}`;
  await cgroups.create(path, container.resources ?? {});
  container.cgroup = path;
  // Saved before the launch: a runtime that dies between here and the started record still knows
  // the cgroup when the container is removed.
  await state.containerStore.put(container);
  // The shim (root) moves the container's process in (shim.ts): its user needs no rights on them.
  return cgroups.procsFiles(path);
}

/** UpdateContainerResources: the new limits go to the running container's cgroup and its record. */
export async function updateContainerCgroup(state: RuntimeState, container: ContainerRecord, resources: ResourceConfig | undefined): Promise<void> {
  if (!resources) return;
  container.resources = { ...container.resources, ...resources };
  if (container.cgroup) await (await state.cgroups()).update(container.cgroup, resources);
  await state.containerStore.put(container);
}

export async function wasOomKilled(state: RuntimeState, container: ContainerRecord): Promise<boolean> {
  if (!container.cgroup) return false;
  return (await (await state.cgroups()).oomKills(container.cgroup)) > 0;
}

/** Removes the container's cgroup with the container (killing anything that escaped its process group). */
export async function removeContainerCgroup(state: RuntimeState, container: ContainerRecord): Promise<void> {
  if (container.cgroup) await (await state.cgroups()).destroy(container.cgroup);
}
