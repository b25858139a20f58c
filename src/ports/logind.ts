/**
 * systemd-logind over the system bus, as the node shutdown manager uses it (Go: the dbusInhibiter
 * of pkg/kubelet/nodeshutdown, implemented by nodeshutdown/systemd's DBusCon).
 */

/** A delay inhibitor lock: shutdown waits for its release, or for InhibitDelayMaxUSec. */
export interface InhibitLock {
  /** Releases the lock; resolves once logind can see it released. Idempotent. */
  release(): Promise<void>;
}

/** One connection to the system bus. */
export interface LogindConnection {
  /** logind's InhibitDelayMaxUSec, in milliseconds. */
  currentInhibitDelayMs(): Promise<number>;
  /** Writes the kubelet's logind drop-in setting InhibitDelayMaxSec (Go's OverrideInhibitDelay). */
  overrideInhibitDelay(delayMs: number): Promise<void>;
  /** Asks systemd to send logind SIGHUP, so it rereads its configuration (Go's ReloadLogindConf). */
  reloadLogindConf(): Promise<void>;
  /** Takes a delay inhibitor of "shutdown" as who=kubelet (Go's InhibitShutdown). */
  inhibitShutdown(): Promise<InhibitLock>;
  /** Calls `onEvent` with each PrepareForShutdown signal's argument (Go's MonitorShutdown). */
  monitorShutdown(onEvent: (shuttingDown: boolean) => void): Promise<void>;
  /** Called once when the connection ends (not after close()). */
  onClose(handler: () => void): void;
  close(): void;
}

export interface Logind {
  /** Connects to the system bus (Go's systemDbus); rejects when there is none. */
  connect(): Promise<LogindConnection>;
}
