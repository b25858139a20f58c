/**
 * The container shim, run as `node shim.js <shimDir>` by the embedded runtime, detached (its own session)
 * and unref'd, so it survives a kubelet-ts restart — the role containerd-shim plays for containerd.
 *
 * Why a shim at all: if the container's stdout/stderr were piped into the kubelet process, a kubelet
 * restart would close the pipes and the container would die of SIGPIPE or lose its output. The shim owns
 * the pipes instead. It
 * 1. reads launch.json and spawns the container process in a new session (so the container is its own
 *    process group leader, and StopContainer can signal the whole tree with kill(-pid)),
 * 2. writes one ShimReport line on stdout (pid + start time, or the spawn error) and never writes there
 *    again (the runtime stops reading),
 * 3. formats the container's stdout/stderr into the CRI log file, re-opening it on SIGUSR2
 *    (ReopenContainerLog after the kubelet rotated it),
 * 4. serves attaches on a unix socket in its directory (shim-attach.ts): the live output, and the
 *    container's stdin when it was created with stdin,
 * 5. when the main process exits, SIGKILLs whatever is left in its process group (what the end of a PID
 *    namespace does to a real container), flushes the log and writes exit.json atomically, then exits.
 * exit.json is how the runtime — this one or a restarted one — learns the exit code.
 *
 * A container with mounts runs in a mount namespace of its own: before step 1 the shim has the holder
 * make it and pins it (shim-namespace.ts), and step 1 spawns nsenter, which enters it, switches user
 * and execs the command — the same process, so the pid, the process group and the exit status are the
 * container's as without mounts.
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
  EXIT_FILE, LAUNCH_FILE, REOPEN_LOG_SIGNAL, STARTED_FILE, type ExitRecord, type LaunchSpec, type ShimReport, type StartedRecord,
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

function report(line: ShimReport): void {
  try {
    writeSync(1, `${JSON.stringify(line)}\n`);
  } catch {
    // The runtime went away before reading (EPIPE). Carry on: started.json says the same thing.
  }
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

export async function runShim(shimDir: string): Promise<void> {
  const launch = readJsonFileSync<LaunchSpec>(join(shimDir, LAUNCH_FILE));
  if (launch.kind !== 'ok') {
    report({ ok: false, error: `shim: cannot read ${LAUNCH_FILE} (${launch.kind})` });
    process.exit(1);
  }
  const spec = launch.value;
  const [command] = spec.command;
  if (command === undefined) {
    report({ ok: false, error: 'no command to run' });
    process.exit(1);
  }

  let logFd: number;
  try {
    logFd = openLog(spec.logPath);
  } catch (err) {
    report({ ok: false, error: `failed to create container log ${spec.logPath}: ${(err as Error).message}` });
    process.exit(1);
  }
  const sink = (record: Buffer): void => {
    try {
      writeSync(logFd, record);
    } catch (err) {
      process.stderr.write(`shim: log write failed: ${(err as Error).message}\n`);
    }
  };
  process.on(REOPEN_LOG_SIGNAL, () => {
    try {
      const next = openLog(spec.logPath);
      closeSync(logFd);
      logFd = next;
    } catch (err) {
      process.stderr.write(`shim: log reopen failed: ${(err as Error).message}\n`);
    }
  });

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
    const pinned = await pinMountNamespace(ns.holder);
    if (!pinned.ok) {
      report({ ok: false, error: pinned.error });
      process.exit(1);
    }
    const fd = (n: number): string => `/proc/${process.pid}/fd/${n}`;
    args = [`--mount=${fd(pinned.mnt)}`, `--wd=${fd(pinned.cwd)}`, ...ns.enterArgs, '--', ...spec.command];
    file = ns.nsenter;
    identity = { cwd: '/' };
  }

  const cgroupProcs = spec.cgroupProcs ?? [];
  if (cgroupProcs.length > 0) {
    // Behind the gate, a command that cannot be found would exit 127 instead of failing to start:
    // look it up first, as spawn would (the mount namespace's holder does its own lookup).
    if (!spec.mountNamespace && !findExecutable(file, spec.env.PATH)) {
      report({ ok: false, error: `failed to start ${JSON.stringify(command)}: executable file not found in $PATH` });
      process.exit(1);
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
  const attach = serveAttach(child.stdin, spec.stdinOnce === true, (message) => process.stderr.write(`shim: ${message}\n`));
  let started = false;
  child.once('error', (err) => {
    if (started) {
      process.stderr.write(`shim: child error: ${err.message}\n`);
      return;
    }
    report({ ok: false, error: `failed to start ${JSON.stringify(command)}: ${err.message}` });
    process.exit(1);
  });
  child.once('spawn', () => {
    started = true;
    const pid = child.pid!;
    if (cgroupProcs.length > 0) {
      const refused = joinCgroups(pid, cgroupProcs);
      if (refused) {
        killGroup(pid);
        report({ ok: false, error: `failed to start ${JSON.stringify(command)}: ${refused}` });
        process.exit(1);
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
    writeFileAtomicSync(join(shimDir, STARTED_FILE), JSON.stringify(record));
    report({ ok: true, pid, startTime: record.startTime, startedAt: record.startedAt });
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
    const exit: ExitRecord = { exit_code: exitCodeFor(code, signal), signal, finished_at: wallClockNs().toString() };
    killGroup(child.pid!);
    const finish = (): void => {
      if (finished) return;
      finished = true;
      stdout.end();
      stderr.end();
      try { closeSync(logFd); } catch { /* already closed */ }
      writeFileAtomicSync(join(shimDir, EXIT_FILE), JSON.stringify(exit));
      void attach.close().then(() => process.exit(0));
    };
    child.once('close', finish);
    setTimeout(finish, DRAIN_TIMEOUT_MS).unref();
  });
}

const shimDir = process.argv[2];
if (shimDir !== undefined && process.argv[1] !== undefined && /shim\.[cm]?js$/.test(process.argv[1])) {
  void runShim(shimDir);
}
