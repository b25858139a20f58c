/**
 * ExecSync: a command run beside the container's process, as its user, in its environment — and, when
 * the container has mounts, in its mount namespace (nsenter into /proc/<pid>/ns/mnt), so a probe sees
 * the files the container sees. The streaming Exec (exec-session.ts) starts its command the same way.
 */
import { KubeletError } from '../../../domain/errors.js';
import type { ExecSyncResponse } from '../../../generated/runtime/v1/ExecSyncResponse.js';
import { containerState } from '../containers/container-answers.js';
import { runExecSync } from './exec-sync.js';
import { enterCommand } from '../mounts/mount-namespace.js';
import { isAlive } from '../containers/processes.js';
import type { ContainerRecord } from '../state/records.js';
import type { RuntimeState } from '../state/runtime-state.js';

/** How to start a command in a container: what spawn() needs. */
export interface ExecLaunch {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  uid?: number;
  gid?: number;
}

export async function execSync(state: RuntimeState, id: string, cmd: string[], timeoutSeconds: number): Promise<ExecSyncResponse> {
  const container = await requireRunningContainer(state, id, 'exec');
  return runExecSync({ ...execLaunch(state, container, cmd), timeoutSeconds });
}

/** The container, refreshed, if it runs; else containerd's "container … is in … state" error. */
export async function requireRunningContainer(state: RuntimeState, id: string, what: string): Promise<ContainerRecord> {
  const container = state.requireContainer(id);
  await state.refresh(container);
  if (container.phase !== 'running') {
    throw new KubeletError('KLT_ERR_CRI_FAILED', `container ${container.id} is in ${containerState(container)} state: cannot ${what}`);
  }
  return container;
}

export function execLaunch(state: RuntimeState, container: ContainerRecord, cmd: string[]): ExecLaunch {
  if (cmd.length === 0) throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', 'exec command must not be empty');
  const user = {
    ...(container.run_as_user !== undefined ? { uid: container.run_as_user } : {}),
    ...(container.run_as_group !== undefined ? { gid: container.run_as_group } : {}),
  };
  if (container.mounts.length === 0) return { argv: cmd, env: container.env, cwd: container.working_dir, ...user };
  const tools = state.mountHost.tools;
  const main = container.process;
  if (!tools || !isAlive(main)) {
    throw new KubeletError('KLT_ERR_CRI_FAILED', `container ${container.id}: cannot exec in its mount namespace: ${tools ? 'its process is gone' : state.mountHost.unavailable()}`);
  }
  const enter = enterCommand(tools, { argv: cmd, env: container.env, ...user }, process.getgid!());
  const proc = `/proc/${main.pid}`;
  return {
    // --wd through the container's root: resolved in its namespace, not ours.
    argv: [tools.nsenter, `--mount=${proc}/ns/mnt`, `--wd=${proc}/root${container.working_dir}`, ...enter.enterArgs, '--', ...enter.command],
    env: enter.env,
    cwd: '/',
  };
}
