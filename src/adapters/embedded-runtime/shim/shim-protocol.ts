/**
 * What the runtime and its detached container shim (shim.ts) tell each other: through files in each
 * container's directory below the shims directory, the shim's control socket (one line asking for a
 * container, one ShimReport line answering) and one line on the shim's stdout when it is ready. Files,
 * not pipes, because the shim outlives the runtime: a restarted runtime finds the answers on disk.
 *
 * This module imports nothing from the project: the detached shim uses it too.
 */

/** Written by the runtime before it spawns the shim. */
export const LAUNCH_FILE = 'launch.json';
/**
 * Written (atomically) by the shim as soon as the container process runs: the same facts as its
 * stdout report, on disk, so a runtime that crashed between spawning the shim and saving the
 * container's record still finds out, on its next start, that the container is running.
 */
export const STARTED_FILE = 'started.json';
/** Written (atomically) by the shim once the container has exited and its output is flushed. */
export const EXIT_FILE = 'exit.json';
/** The shim's own diagnostics (its stderr), in the shims directory. Never a container's output. */
export const SHIM_LOG_FILE = 'shim.log';
/** The shim's control socket, in the shims directory (its working directory): `<container dir>\n` starts that container. */
export const SHIM_SOCKET = 'shim.sock';
/** Written (atomically) by the shim in the shims directory once it listens: who to connect to. */
export const SHIM_FILE = 'shim.json';
/** The shim's one stdout line once it listens. */
export const SHIM_READY = 'ready';

/**
 * A container's attach socket (shim-attach.ts), in its directory below the shim's working directory:
 * the runtime connects through /proc/<shim>/cwd/<id>/ so the path stays short.
 */
export const ATTACH_SOCKET = 'attach.sock';
/** An attach's first byte: it feeds the container's stdin (else 0: output only). */
export const ATTACH_WITH_STDIN = 1;

/** The shim re-opens its containers' logs on this signal (ReopenContainerLog). SIGUSR1 is Node's debugger. */
export const REOPEN_LOG_SIGNAL = 'SIGUSR2';

export interface LaunchSpec {
  /** argv[0] is looked up on env.PATH. */
  command: string[];
  env: Record<string, string>;
  cwd: string;
  /** Absolute path of the CRI log file (log_directory + log_path). */
  logPath: string;
  maxLineBytes: number;
  /** run_as_user / run_as_group; absent: the shim's own (the runtime's user). */
  uid?: number;
  gid?: number;
  /**
   * Run the container in a mount namespace of its own (mount-namespace.ts, shim-namespace.ts). The
   * shim then ignores uid, gid and cwd: the holder's script has changed to the working directory
   * and nsenter switches user (enterArgs).
   */
  mountNamespace?: MountNamespaceSpec;
  /** ContainerConfig.stdin: the container's stdin is a pipe an attach can write to (else /dev/null). */
  stdin?: boolean;
  /** ContainerConfig.stdin_once: the first attach that ends closes that pipe. */
  stdinOnce?: boolean;
  /** The container's cgroup.procs files (one per hierarchy): its process joins them before it runs the command. */
  cgroupProcs?: string[];
}

/** What the holder writes on fd 3 once the namespace is ready; anything else is why it is not. */
export const HOLDER_READY = 'ready';

export interface MountNamespaceSpec {
  /** unshare … sh -c <script>: makes the namespace, says `ready` (or why not) on fd 3, then waits for stdin to close. */
  holder: string[];
  /** The nsenter that starts the container in it. */
  nsenter: string;
  /** nsenter's user switch (-G gid, -S uid), if any. */
  enterArgs: string[];
}

/** The shim's answer on the control socket, once the container process has started (or failed to). */
export type ShimReport =
  | { ok: true; pid: number; startTime: string | null; startedAt: string }
  | { ok: false; error: string };

/** shim.json: the running shim of a shims directory. */
export interface ShimRecord {
  pid: number;
  startTime: string | null;
}

export interface StartedRecord {
  pid: number;
  startTime: string | null;
  startedAt: string;
  shimPid: number;
  shimStartTime: string | null;
}

export interface ExitRecord {
  exit_code: number;
  /** The signal that ended the container's main process, when one did. */
  signal: string | null;
  /** Epoch nanoseconds, decimal. */
  finished_at: string;
}
