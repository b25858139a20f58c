/**
 * The host processes behind a container: is it still running, signal its process group, wait for it
 * to exit. A pid is trusted only with its /proc start time (proc-stat.ts), so a recycled pid is never
 * signalled.
 */
import { stat } from 'node:fs/promises';
import { KubeletError } from '../../../domain/errors.js';
import { isSameProcessAlive, type ProcessIdentity } from '../shim/proc-stat.js';
import type { ContainerRecord } from '../state/records.js';
import type { RuntimeState } from '../state/runtime-state.js';

/** How often a wait polls the shim's exit record (or a reopened log file). */
export const EXIT_POLL_MS = 20;
/** After SIGKILL a process group is gone in milliseconds; this only bounds a wedged (D-state) process. */
const KILL_WAIT_MS = 10_000;

export function isAlive(identity: ProcessIdentity | undefined): identity is ProcessIdentity {
  return identity !== undefined && identity.startTime !== '' && isSameProcessAlive(identity);
}

/** The container's process, or at least its shim (which will report the exit), still runs. */
export function isRunningProcess(container: ContainerRecord): boolean {
  return isAlive(container.process) || isAlive(container.shim);
}

/** Signals the container's process group, but only if its leader is still the process we started. */
export function signalGroup(identity: ProcessIdentity | undefined, signal: NodeJS.Signals): void {
  if (!isAlive(identity)) return;
  try {
    process.kill(-identity.pid, signal);
  } catch {
    // ESRCH: it exited between the check and the signal.
  }
}

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Stops a container whose lock the caller holds (see stopContainer). */
export async function stopLocked(state: RuntimeState, container: ContainerRecord, timeoutSeconds: number): Promise<void> {
  await state.refresh(container);
  if (container.phase !== 'running') return;
  if (timeoutSeconds > 0) {
    signalGroup(container.process, 'SIGTERM');
    if (await waitForExit(state, container, timeoutSeconds * 1000)) return;
  }
  signalGroup(container.process, 'SIGKILL');
  if (!(await waitForExit(state, container, KILL_WAIT_MS))) {
    throw new KubeletError('KLT_ERR_CRI_FAILED', `container ${container.id} did not exit after SIGKILL`);
  }
  state.options.logger.info({ containerId: container.id, exitCode: container.exit_code }, 'Stopped container');
}

async function waitForExit(state: RuntimeState, container: ContainerRecord, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    await state.refresh(container);
    if (container.phase !== 'running') return true;
    if (Date.now() >= deadline) return false;
    await sleep(EXIT_POLL_MS);
  }
}
