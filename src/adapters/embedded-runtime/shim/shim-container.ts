/**
 * One container under the shim (shim.ts): what the shim does for each container it is asked to start.
 * It
 * 1. reads <dir>/launch.json and spawns the container process in a new session (so the container is its
 *    own process group leader, and StopContainer can signal the whole tree with kill(-pid)),
 * 2. reports once (pid + start time, or the spawn error) and writes the same to started.json,
 * 3. formats the container's stdout/stderr into the CRI log file, re-opening it when asked
 *    (ReopenContainerLog after the kubelet rotated it),
 * 4. serves attaches on <dir>/attach.sock (shim-attach.ts): the live output, and the container's stdin
 *    when it was created with stdin,
 * 5. when the main process exits, SIGKILLs whatever is left in its process group (what the end of a PID
 *    namespace does to a real container), flushes the log and writes exit.json atomically.
 * exit.json is how the runtime — this one or a restarted one — learns the exit code.
 *
 * A container with mounts runs in a mount namespace of its own: before step 1 the shim has the holder
 * make it and pins it (shim-namespace.ts), and step 1 spawns nsenter, which enters it, switches user
 * and execs the command — the same process, so the pid, the process group and the exit status are the
 * container's as without mounts. The pinned descriptors are closed once the container is gone.
 *
 * `dir` is relative to the shim's working directory (the shims directory). This module imports
 * nothing from the project but the shim's own modules: the detached shim runs it.
 */
import { spawn } from 'node:child_process';
import { accessSync, closeSync, constants, mkdirSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { dirname, join } from 'node:path';
import { CriLogStreamFormatter, wallClockNs } from './cri-log-writer.js';
import { readJsonFileSync, writeFileAtomicSync } from './atomic-file.js';
import { exitCodeFor } from './exit-code.js';
import { identifyProcess } from './proc-stat.js';
import { serveAttach } from './shim-attach.js';
import { pinMountNamespace } from './shim-namespace.js';
import {
  ATTACH_SOCKET, EXIT_FILE, LAUNCH_FILE, STARTED_FILE, type ExitRecord, type LaunchSpec, type ShimReport, type StartedRecord,
} from './shim-protocol.js';

/**
 * sh -c: wait for one line on fd 3, close it, exec the command (same pid). The shim, as root, moves
 * the waiting process into the container's cgroup meanwhile: nothing of the command runs outside it,
 * and the move needs no rights of the container's user (cgroup v2 and v1's unified hierarchy want
 * write access to the common ancestor's cgroup.procs, which only root has).
 */
const CGROUP_GATE_SCRIPT = 'read -r go <&3; exec 3<&-; exec "$@"';

/** How long to wait for the pipes to drain after the main process exited (an escaped grandchild may hold them). */
const DRAIN_TIMEOUT_MS = 2000;

/** What the shim gives each container: where its report goes, its diagnostics, and the log re-open registry. */
export interface ContainerHost {
  report(line: ShimReport): void;
  /** The shim's own diagnostics (its log), never the container's output. */
  diagnose(message: string): void;
  /** Registers a re-open of this container's log; the answer unregisters it. */
  onReopenLog(reopen: () => void): () => void;
}

function openLog(path: string): number {
  mkdirSync(dirname(path), { recursive: true });
  return openSync(path, 'a', 0o640);
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: nothing left in the group.
  }
}

function closeQuietly(fd: number): void {
  try { closeSync(fd); } catch { /* already closed */ }
}

/** Moves `pid` into each cgroup (its cgroup.procs files); answers what refused, or null. */
function joinCgroups(pid: number, procsFiles: readonly string[]): string | null {
  for (const file of procsFiles) {
    try {
      writeFileSync(file, String(pid));
    } catch (err) {
      return `cannot join cgroup ${dirname(file)}: ${(err as Error).message}`;
    }
  }
  return null;
}

/** Whether `command` names an executable file, itself (with a slash) or in one of PATH's directories. */
function findExecutable(command: string, path: string | undefined): boolean {
  const candidates = command.includes('/') ? [command] : (path ?? '').split(':').filter(Boolean).map((dir) => join(dir, command));
  return candidates.some((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return statSync(candidate).isFile();
    } catch {
      return false;
    }
  });
}

/** Runs the container `dir` describes; resolves once it is gone and exit.json is written (or it failed to start, reported). */
export async function runContainer(dir: string, host: ContainerHost): Promise<void> {
  const launch = readJsonFileSync<LaunchSpec>(join(dir, LAUNCH_FILE));
  if (launch.kind !== 'ok') return host.report({ ok: false, error: `shim: cannot read ${LAUNCH_FILE} (${launch.kind})` });
  const spec = launch.value;
  const [command] = spec.command;
  if (command === undefined) return host.report({ ok: false, error: 'no command to run' });

  let logFd: number;
  try {
    logFd = openLog(spec.logPath);
  } catch (err) {
    return host.report({ ok: false, error: `failed to create container log ${spec.logPath}: ${(err as Error).message}` });
  }
  const sink = (record: Buffer): void => {
    try {
      writeSync(logFd, record);
    } catch (err) {
      host.diagnose(`log write failed: ${(err as Error).message}`);
    }
  };
  const forgetReopen = host.onReopenLog(() => {
    try {
      const next = openLog(spec.logPath);
      closeSync(logFd);
      logFd = next;
    } catch (err) {
      host.diagnose(`log reopen failed: ${(err as Error).message}`);
    }
  });
  const pinned: number[] = [];
  // Once only: in a shim shared by every container, a descriptor number closed twice may be another container's by then.
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    forgetReopen();
    closeQuietly(logFd);
    pinned.forEach(closeQuietly);
  };
  const refuse = (error: string): void => {
    release();
    host.report({ ok: false, error });
  };

  const stdout = new CriLogStreamFormatter('stdout', { sink, maxLineBytes: spec.maxLineBytes });
  const stderr = new CriLogStreamFormatter('stderr', { sink, maxLineBytes: spec.maxLineBytes });

  let [file, ...args] = spec.command as [string, ...string[]];
  let identity: { cwd: string; uid?: number; gid?: number } = {
    cwd: spec.cwd,
    ...(spec.uid !== undefined ? { uid: spec.uid } : {}),
    ...(spec.gid !== undefined ? { gid: spec.gid } : {}),
  };
  if (spec.mountNamespace) {
    const ns = spec.mountNamespace;
    const namespace = await pinMountNamespace(ns.holder);
    if (!namespace.ok) return refuse(namespace.error);
    pinned.push(namespace.mnt, namespace.cwd);
    const fd = (n: number): string => `/proc/${process.pid}/fd/${n}`;
    args = [`--mount=${fd(namespace.mnt)}`, `--wd=${fd(namespace.cwd)}`, ...ns.enterArgs, '--', ...spec.command];
    file = ns.nsenter;
    identity = { cwd: '/' };
  }

  const cgroupProcs = spec.cgroupProcs ?? [];
  if (cgroupProcs.length > 0) {
    // Behind the gate, a command that cannot be found would exit 127 instead of failing to start:
    // look it up first, as spawn would (the mount namespace's holder does its own lookup).
    if (!spec.mountNamespace && !findExecutable(file, spec.env.PATH)) {
      return refuse(`failed to start ${JSON.stringify(command)}: executable file not found in $PATH`);
    }
    args = ['-c', CGROUP_GATE_SCRIPT, 'cgroup-gate', file, ...args];
    file = '/bin/sh';
  }
  const child = spawn(file, args, {
    ...identity,
    env: spec.env,
    stdio: [spec.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', ...(cgroupProcs.length > 0 ? ['pipe' as const] : [])],
    detached: true,
  });
  const attach = serveAttach(join(dir, ATTACH_SOCKET), child.stdin, spec.stdinOnce === true, host.diagnose);
  return new Promise<void>((done) => {
    // 'spawned' once the process runs; 'failed' once the start was reported failed (its end is then no exit).
    let phase: 'starting' | 'spawned' | 'failed' = 'starting';
    const fail = (error: string): void => {
      phase = 'failed';
      refuse(error);
      void attach.close().then(done);
    };
    child.once('error', (err) => {
      if (phase !== 'starting') return host.diagnose(`child error: ${err.message}`);
      fail(`failed to start ${JSON.stringify(command)}: ${err.message}`);
    });
    child.once('spawn', () => {
      phase = 'spawned';
      const pid = child.pid!;
      if (cgroupProcs.length > 0) {
        const refused = joinCgroups(pid, cgroupProcs);
        if (refused) {
          killGroup(pid);
          return fail(`failed to start ${JSON.stringify(command)}: ${refused}`);
        }
        (child.stdio[3] as Writable).end('go\n');
      }
      const record: StartedRecord = {
        pid,
        startTime: identifyProcess(pid)?.startTime ?? null,
        startedAt: wallClockNs().toString(),
        shimPid: process.pid,
        shimStartTime: identifyProcess(process.pid)?.startTime ?? null,
      };
      writeFileAtomicSync(join(dir, STARTED_FILE), JSON.stringify(record));
      host.report({ ok: true, pid, startTime: record.startTime, startedAt: record.startedAt });
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout.write(chunk);
      attach.output(1, chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr.write(chunk);
      attach.output(2, chunk);
    });

    let finished = false;
    child.once('exit', (code, signal) => {
      if (phase !== 'spawned') return;
      const exit: ExitRecord = { exit_code: exitCodeFor(code, signal), signal, finished_at: wallClockNs().toString() };
      killGroup(child.pid!);
      const finish = (): void => {
        if (finished) return;
        finished = true;
        stdout.end();
        stderr.end();
        release();
        writeFileAtomicSync(join(dir, EXIT_FILE), JSON.stringify(exit));
        void attach.close().then(done);
      };
      child.once('close', finish);
      setTimeout(finish, DRAIN_TIMEOUT_MS).unref();
    });
  });
}
