/** The stats RPCs: the containers and sandboxes a filter selects, measured by container-stats.ts (from their cgroups when they have one). */
import type { ContainerStats } from '../../../generated/runtime/v1/ContainerStats.js';
import type { ContainerStatsFilter__Output } from '../../../generated/runtime/v1/ContainerStatsFilter.js';
import type { PodSandboxStats } from '../../../generated/runtime/v1/PodSandboxStats.js';
import type { PodSandboxStatsFilter__Output } from '../../../generated/runtime/v1/PodSandboxStatsFilter.js';
import { measureContainers, measureSandboxes } from './container-stats.js';
import { listContainers } from './containers.js';
import type { RuntimeState } from '../state/runtime-state.js';
import { listPodSandbox } from './sandboxes.js';

/** A container with a cgroup is read from it (the cgroup manager is only looked up then). */
const sources = (state: RuntimeState) => ({ cgroupUsage: async (path: string) => (await state.cgroups()).usage(path) });

export async function listContainerStats(state: RuntimeState, filter: ContainerStatsFilter__Output | null): Promise<ContainerStats[]> {
  const ids = new Set((await listContainers(state, filter)).map((c) => c.id));
  return measureContainers([...state.containers.values()].filter((c) => ids.has(c.id)), state.options.nowNs(), sources(state));
}

export async function containerStats(state: RuntimeState, id: string): Promise<ContainerStats> {
  const container = state.requireContainer(id);
  await state.refresh(container);
  const [stats] = await measureContainers([container], state.options.nowNs(), sources(state));
  return stats!;
}

/** Ready sandboxes only, as containerd lists them. */
export async function listPodSandboxStats(state: RuntimeState, filter: PodSandboxStatsFilter__Output | null): Promise<PodSandboxStats[]> {
  await state.refreshAll();
  const ids = new Set(listPodSandbox(state, filter).filter((s) => s.state === 'SANDBOX_READY').map((s) => s.id));
  const sandboxes = [...state.sandboxes.values()].filter((s) => ids.has(s.id));
  return measureSandboxes(sandboxes, (id) => state.containersOf(id), state.options.nowNs(), sources(state));
}

export async function podSandboxStats(state: RuntimeState, id: string): Promise<PodSandboxStats> {
  const sandbox = state.requireSandbox(id);
  await state.refreshAll();
  const [stats] = await measureSandboxes([sandbox], (sid) => state.containersOf(sid), state.options.nowNs(), sources(state));
  return stats!;
}
