/**
 * run.lockFile: the Go kubelet's --lock-file and --exit-on-lock-contention.
 *
 * The lock. Go opens the file (O_CREAT|O_RDWR, 0600) and calls flock(fd, LOCK_EX), blocking until
 * the lock is free; the lock lives as long as the process. Node has no flock(2), so we open the file
 * here and lend that same descriptor, as fd 3, to util-linux's `flock(1)` (`flock --exclusive 3`).
 * flock(2) locks belong to the open file description, which the child shares with us: when the
 * child exits the lock stays, held by our descriptor, and the kernel drops it when our descriptor is
 * closed, including when this process dies in any way. So it is a real kernel lock with no stale
 * state after a crash, unlike an O_EXCL sidecar file. The costs: util-linux must be installed
 * (it is on every distribution a kubelet runs on), and taking the lock spawns a short-lived child.
 * Waiting is a blocked `flock` child, which we kill to cancel. Before it waits, the kubelet says so
 * in its log, naming the file (Go logs "Acquiring file lock on" before it blocks, waiting or not);
 * the phase also shows the reason as phase.waiting on /debug/actors.
 *
 * Contention. Go watches the lock file with inotify for IN_OPEN and IN_DELETE_SELF and exits on
 * the first event; Node's fs.watch cannot ask for IN_OPEN. We instead poll /proc/locks for a process
 * blocked waiting for a flock on our file (a second kubelet, Go or ours, blocks exactly there), and
 * use fs.watch plus a stat to see the file being removed or replaced. Differences from Go: a mere
 * open (`cat kubelet.lock`) does not count as contention here, which is what Go's check means to
 * catch anyway; and a contender is seen within one poll interval rather than at once.
 */
import { spawn } from 'node:child_process';
import type { Logger } from 'pino';
import { constants, watch, type FSWatcher } from 'node:fs';
import { open, readFile, stat, type FileHandle } from 'node:fs/promises';
import { KubeletError } from '../../domain/errors.js';
import { findFlockWaiters, splitDevice, type FileIdentity } from '../../domain/node/proc-locks.js';
import type { LockContention } from '../../domain/node/host-types.js';
import type { LockAcquireOptions, LockFile, LockHandle } from '../../ports/host.js';

export interface FlockLockFileOptions {
  /** The flock(1) binary. */
  flockCommand?: string;
  procLocksPath?: string;
  /** How often /proc/locks is read while watching for contention. */
  pollIntervalMs?: number;
  /** Told when the lock is held elsewhere and we wait for it, and when we get it after waiting. */
  logger?: Logger;
}

/** An exit code flock(1) does not otherwise use, to tell "held elsewhere" from real failures. */
const CONFLICT_EXIT_CODE = 75;

type FlockResult = { kind: 'locked' } | { kind: 'conflict' } | { kind: 'cancelled' } | { kind: 'failed'; detail: string };

function lockIoError(path: string, detail: string, cause?: unknown): KubeletError {
  return new KubeletError('KLT_ERR_LOCK_IO', `unable to acquire file lock on ${JSON.stringify(path)}: ${detail}`, { cause });
}

/** Run flock(1) on our descriptor (as its fd 3) and report how it ended. */
function runFlock(command: string, args: string[], fd: number, signal?: AbortSignal): Promise<FlockResult> {
  return new Promise((resolve) => {
    const child = spawn(command, [...args, '3'], { stdio: ['ignore', 'ignore', 'pipe', fd] });
    let stderr = '';
    let cancelled = false;
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const onAbort = () => {
      cancelled = true;
      child.kill('SIGKILL');
    };
    // The signal may already have fired (e.g. from the caller's onWaiting): then no event will come.
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err: NodeJS.ErrnoException) => {
      signal?.removeEventListener('abort', onAbort);
      const detail = err.code === 'ENOENT' ? `${command} (util-linux) is required for --lock-file and was not found` : err.message;
      resolve({ kind: 'failed', detail });
    });
    child.on('close', (code) => {
      signal?.removeEventListener('abort', onAbort);
      if (cancelled) resolve({ kind: 'cancelled' });
      else if (code === 0) resolve({ kind: 'locked' });
      else if (code === CONFLICT_EXIT_CODE) resolve({ kind: 'conflict' });
      else resolve({ kind: 'failed', detail: stderr.trim() || `${command} exited with code ${String(code)}` });
    });
  });
}

export class FlockLockFile implements LockFile {
  private readonly flockCommand: string;
  private readonly procLocksPath: string;
  private readonly pollIntervalMs: number;
  private readonly logger: Logger | undefined;

  constructor(opts: FlockLockFileOptions = {}) {
    this.logger = opts.logger;
    this.flockCommand = opts.flockCommand ?? 'flock';
    this.procLocksPath = opts.procLocksPath ?? '/proc/locks';
    this.pollIntervalMs = opts.pollIntervalMs ?? 500;
  }

  async acquire(path: string, opts: LockAcquireOptions): Promise<LockHandle> {
    let fh: FileHandle;
    try {
      fh = await open(path, constants.O_CREAT | constants.O_RDWR, 0o600);
    } catch (err) {
      throw lockIoError(path, (err as Error).message, err);
    }
    try {
      await this.lock(path, fh, opts);
      const handle = new HeldLock(path, fh);
      if (opts.exitOnContention) await handle.watch(this.procLocksPath, this.pollIntervalMs);
      return handle;
    } catch (err) {
      await fh.close().catch(() => undefined);
      throw err;
    }
  }

  private async lock(path: string, fh: FileHandle, opts: LockAcquireOptions): Promise<void> {
    const cancelled = () => new KubeletError('KLT_ERR_LOCK_CONTENDED', `gave up waiting for file lock on ${JSON.stringify(path)}: held by another process`);
    if (opts.signal?.aborted) throw cancelled();
    // First without waiting, so the caller can say it is waiting for another process.
    const first = await runFlock(this.flockCommand, ['--exclusive', '--nonblock', '--conflict-exit-code', String(CONFLICT_EXIT_CODE)], fh.fd);
    if (first.kind === 'locked') return;
    if (first.kind === 'failed') throw lockIoError(path, first.detail);
    this.logger?.info({ path }, 'Waiting for the lock file: another process holds it');
    opts.onWaiting?.();
    const second = await runFlock(this.flockCommand, ['--exclusive'], fh.fd, opts.signal);
    if (second.kind === 'locked') {
      this.logger?.info({ path }, 'Acquired the lock file after waiting');
      return;
    }
    if (second.kind === 'cancelled') throw cancelled();
    throw lockIoError(path, second.kind === 'failed' ? second.detail : 'unexpected conflict while waiting');
  }
}

class HeldLock implements LockHandle {
  private readonly callbacks = new Set<(c: LockContention) => void>();
  private contention: LockContention | null = null;
  private timer: NodeJS.Timeout | null = null;
  private watcher: FSWatcher | null = null;
  private identity: FileIdentity & { dev: bigint; ino: bigint } = { major: 0, minor: 0, inode: 0n, dev: 0n, ino: 0n };
  private released = false;

  constructor(readonly path: string, private readonly fh: FileHandle) {}

  /** Start the contention watch; fails (KLT_ERR_LOCK_IO) if /proc/locks cannot be read, as Go fails if inotify cannot watch. */
  async watch(procLocksPath: string, pollIntervalMs: number): Promise<void> {
    const st = await this.fh.stat({ bigint: true });
    this.identity = { ...splitDevice(st.dev), inode: st.ino, dev: st.dev, ino: st.ino };
    try {
      await readFile(procLocksPath, 'utf8');
    } catch (err) {
      throw new KubeletError('KLT_ERR_LOCK_IO', `unable to watch lock file ${JSON.stringify(this.path)}: ${(err as Error).message}`, { cause: err });
    }
    const poll = () => {
      readFile(procLocksPath, 'utf8').then(
        (text) => {
          const [pid] = findFlockWaiters(text, this.identity);
          if (pid !== undefined) this.signal({ reason: 'waiter', waiterPid: pid });
        },
        () => undefined, // a transient read failure: the next poll tries again
      );
    };
    this.timer = setInterval(poll, pollIntervalMs);
    this.timer.unref();
    this.watcher = watch(this.path, { persistent: false }, () => void this.checkStillOurs());
    this.watcher.on('error', () => void this.checkStillOurs());
    poll();
  }

  private async checkStillOurs(): Promise<void> {
    try {
      const st = await stat(this.path, { bigint: true });
      if (st.ino === this.identity.ino && st.dev === this.identity.dev) return;
    } catch {
      // gone
    }
    this.signal({ reason: 'lock-file-removed' });
  }

  private signal(contention: LockContention): void {
    if (this.contention || this.released) return;
    this.contention = contention;
    this.stopWatching();
    for (const cb of this.callbacks) cb(contention);
  }

  onContention(cb: (contention: LockContention) => void): () => void {
    this.callbacks.add(cb);
    const seen = this.contention;
    if (seen) queueMicrotask(() => cb(seen));
    return () => this.callbacks.delete(cb);
  }

  private stopWatching(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.watcher?.close();
    this.watcher = null;
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    this.stopWatching();
    this.callbacks.clear();
    // Closing our descriptor (the last one: flock's children have exited) drops the lock.
    await this.fh.close();
  }
}
