/**
 * A container's mounts, between the CRI calls and the mount plan: checked at CreateContainer (so what
 * cannot be honoured is the kubelet's CreateContainerError), and at StartContainer planned again
 * against the host as it is then, prepared on the host and turned into the LaunchSpec's part.
 */
import { join } from 'node:path';
import { KubeletError } from '../../../domain/errors.js';
import { enterCommand, namespaceSpec, prepareMountPoints } from './mount-namespace.js';
import { mountRefused, planMounts } from './mount-plan.js';
import type { ContainerRecord } from '../state/records.js';
import type { RuntimeState } from '../state/runtime-state.js';
import type { LaunchSpec } from '../shim/shim-protocol.js';

/** Refuses, with KLT_ERR_CRI_INVALID_ARGUMENT naming the mount, what StartContainer could not apply. */
export async function checkContainerMounts(state: RuntimeState, container: ContainerRecord): Promise<void> {
  if (container.mounts.length === 0) return;
  await planMounts(container.mounts, state.mountHost, state.options.stateDir);
  // The plan found the tools (else it refused); this refuses the one command nsenter cannot start.
  const tools = state.mountHost.tools;
  if (tools) enterCommand(tools, namespaceContainer(container), process.getgid!());
}

export interface MountedLaunch {
  spec: Pick<LaunchSpec, 'command' | 'env' | 'mountNamespace'>;
  createdOnHost: string[];
}

/** Plans and prepares the container's mounts; the error, if any, is a StartContainer one (KLT_ERR_CRI_FAILED). */
export async function prepareContainerMounts(state: RuntimeState, container: ContainerRecord): Promise<MountedLaunch> {
  const tools = state.mountHost.tools;
  try {
    const plan = await planMounts(container.mounts, state.mountHost, state.options.stateDir);
    if (!tools) throw mountRefused(container.mounts[0]!, state.mountHost.unavailable() ?? 'mount tools missing');
    const enter = enterCommand(tools, namespaceContainer(container), process.getgid!());
    const nsDir = join(state.shimDir(container.id), 'ns');
    const createdOnHost = await prepareMountPoints(plan, nsDir);
    const mountNamespace = namespaceSpec({
      plan, nsDir, tools, workingDir: container.working_dir, command: container.argv[0] ?? '', path: container.env.PATH,
    }, enter);
    return { spec: { command: enter.command, env: enter.env, mountNamespace }, createdOnHost };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new KubeletError('KLT_ERR_CRI_FAILED', `failed to start container: ${message}`, { cause: err });
  }
}

function namespaceContainer(container: ContainerRecord) {
  return {
    argv: container.argv,
    env: container.env,
    ...(container.run_as_user !== undefined ? { uid: container.run_as_user } : {}),
    ...(container.run_as_group !== undefined ? { gid: container.run_as_group } : {}),
  };
}
