/**
 * The streaming Exec: the command starts as ExecSync's does (exec.ts: the container's environment,
 * working directory and user, in its mount namespace when it has mounts), with its stdin, stdout and
 * stderr connected to the client's channels, and its exit code reported when it ends. Under a TTY it
 * runs on a pseudo-terminal instead (exec-tty.ts). The command is its own process-group leader: when
 * it exits, what it left in its group is killed (as ExecSync does), and when the client goes away
 * first, the whole group is.
 */
import { spawn } from 'node:child_process';
import type { RemoteCommandSession } from '../../stream-protocols/sessions.js';
import { exitCodeFor } from '../shim/exit-code.js';
import { execLaunch, requireRunningContainer, type ExecLaunch } from './exec.js';
import { runOnTerminal } from './exec-tty.js';
import type { RuntimeState } from '../state/runtime-state.js';

export interface StreamExecRequest {
  containerId: string;
  cmd: string[];
}

export async function runExecSession(state: RuntimeState, request: StreamExecRequest, session: RemoteCommandSession): Promise<void> {
  let launch: ExecLaunch;
  try {
    const container = await requireRunningContainer(state, request.containerId, 'exec');
    launch = execLaunch(state, container, request.cmd);
  } catch (err) {
    session.finish({ kind: 'failed', message: execFailure((err as Error).message) });
    return;
  }
  const exitCode = session.tty ? await runOnTerminal(launch, session) : await runPiped(launch, session);
  if (typeof exitCode === 'string') session.finish({ kind: 'failed', message: execFailure(exitCode) });
  else session.finish({ kind: 'exited', exitCode, command: request.cmd });
}

/** Go's remotecommand prefix around containerd's: what the client reads after "Internal error occurred: ". */
function execFailure(why: string): string {
  return `error executing command in container: failed to exec in container: ${why}`;
}

/** The exit code, or why the command could not be started. */
function runPiped(launch: ExecLaunch, session: RemoteCommandSession): Promise<number | string> {
  const [file, ...args] = launch.argv as [string, ...string[]];
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd: launch.cwd,
      env: launch.env,
      detached: true,
      stdio: [session.stdin ? 'pipe' : 'ignore', session.stdout ? 'pipe' : 'ignore', session.stderr ? 'pipe' : 'ignore'],
      ...(launch.uid !== undefined ? { uid: launch.uid } : {}),
      ...(launch.gid !== undefined ? { gid: launch.gid } : {}),
    });
    const clientGone = (): void => killGroup(child.pid);
    session.closed.addEventListener('abort', clientGone, { once: true });
    if (session.stdin && child.stdin) {
      child.stdin.on('error', () => undefined); // EPIPE: the command stopped reading
      session.stdin.pipe(child.stdin);
    }
    if (session.stdout && child.stdout) child.stdout.pipe(session.stdout, { end: false });
    if (session.stderr && child.stderr) child.stderr.pipe(session.stderr, { end: false });
    child.once('error', (err) => {
      session.closed.removeEventListener('abort', clientGone);
      resolve(err.message);
    });
    child.once('exit', () => killGroup(child.pid)); // no stragglers, as for ExecSync
    child.once('close', (code, signal) => {
      session.closed.removeEventListener('abort', clientGone);
      session.stdin?.unpipe();
      resolve(exitCodeFor(code, signal));
    });
  });
}

export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: already gone.
  }
}
