/**
 * The host, as the start-up phases see it: one narrow interface per responsibility (Go kubelet
 * style), so each phase's actor takes only what it uses and each has a small fake
 * (test/fakes/fake-host.ts). Real implementations live in src/adapters/host/.
 */
import type { HostAddress, LockContention, MachineInfo, OomScoreOutcome, SdNotifyOutcome } from '../domain/node/host-types.js';

export type { HostAddress, LockContention, MachineInfo, OomScoreOutcome, SdNotifyOutcome };

/** An exclusive lock on --lock-file, held until release() or the process ends (even by a crash). */
export interface LockHandle {
  readonly path: string;
  /** Drop the lock and stop watching. Idempotent. */
  release(): Promise<void>;
  /**
   * Called once when another process contends for the lock (only with exitOnContention). A
   * callback registered after contention was seen is called at once. Returns an unsubscribe.
   */
  onContention(cb: (contention: LockContention) => void): () => void;
}

export interface LockAcquireOptions {
  /** --exit-on-lock-contention: watch for contenders once the lock is held. */
  exitOnContention: boolean;
  /** Stop waiting for a lock held elsewhere: acquire() rejects with KLT_ERR_LOCK_CONTENDED. */
  signal?: AbortSignal;
  /** Called once if the lock is held elsewhere and acquire() starts waiting (Go blocks silently). */
  onWaiting?: () => void;
}

export interface LockFile {
  /**
   * Create the file if missing (mode 0600, parent must exist) and take an exclusive lock on it,
   * waiting as long as another process holds it. Errors: KLT_ERR_LOCK_IO (cannot open or lock),
   * KLT_ERR_LOCK_CONTENDED (waiting was cancelled).
   */
  acquire(path: string, opts: LockAcquireOptions): Promise<LockHandle>;
}

export interface MachineInfoSource {
  /** Cores, memory, the filesystem holding `rootDir` (--root-dir), ids and versions. KLT_ERR_HOST_IO on failure. */
  read(rootDir: string): Promise<MachineInfo>;
}

export interface OomScoreWriter {
  /** Write this process's oom_score_adj (-1000..1000). Refusal for lack of privilege is an outcome, not an error. */
  setOwn(score: number): Promise<OomScoreOutcome>;
}

export interface SysctlReader {
  /** The integer value of a tunable below /proc/sys (`vm/overcommit_memory`); throws, worded as Go's, when unreadable. */
  read(flag: string): Promise<number>;
}

export interface SystemdNotifier {
  /** Tell systemd start-up is complete (READY=1 to NOTIFY_SOCKET). Never throws. */
  notifyReady(): Promise<SdNotifyOutcome>;
  /** Feed systemd's watchdog (WATCHDOG=1 to NOTIFY_SOCKET). Never throws. */
  notifyWatchdog(): Promise<SdNotifyOutcome>;
}

export interface HostnameSource {
  /** The kernel's hostname, as is (run.nodeName trims and lower-cases it). */
  hostname(): string;
}

export interface HostAddresses {
  /** The host's interface addresses, loopback excluded. */
  addresses(): HostAddress[];
}
