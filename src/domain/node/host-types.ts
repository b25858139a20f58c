/**
 * Data that crosses the host ports (src/ports/host.ts). Plain JSON, so the supervisor can put it on
 * events and the journal can record it.
 */

/** Where `numCores` came from: `processor` entries of /proc/cpuinfo, or Node's os.availableParallelism(). */
export type NumCoresSource = 'cpuinfo' | 'availableParallelism';

export interface FilesystemInfo {
  /** The directory asked for (--root-dir). */
  requestedPath: string;
  /**
   * The directory actually measured: `requestedPath` or, when it does not exist yet, its nearest
   * existing ancestor (the Go kubelet creates --root-dir later, in initializeModules).
   */
  statfsPath: string;
  capacityBytes: number;
  availableBytes: number;
  inodes: number;
  inodesFree: number;
}

/**
 * What the kubelet takes from cAdvisor's MachineInfo and VersionInfo at start-up: capacity and the
 * node's system info (NodeSystemInfo fields).
 */
export interface MachineInfo {
  numCores: number;
  numCoresSource: NumCoresSource;
  /** MemTotal from /proc/meminfo, in bytes. */
  memoryCapacityBytes: number;
  rootFilesystem: FilesystemInfo;
  /** /etc/machine-id (or /var/lib/dbus/machine-id); empty when neither is readable. */
  machineId: string;
  /** /sys/class/dmi/id/product_uuid; empty when not readable (it is root-only, and absent on some VMs). */
  systemUuid: string;
  /** /proc/sys/kernel/random/boot_id. */
  bootId: string;
  /** uname release. */
  kernelVersion: string;
  /** PRETTY_NAME from os-release; "Linux" when there is none (cAdvisor's fallback). */
  osImage: string;
  /** Go's GOOS. */
  operatingSystem: string;
  /** Go's GOARCH naming: amd64, arm64, … */
  architecture: string;
  /** How many tasks the kernel allows (Go's pidlimit): the smaller of kernel.pid_max and kernel.threads-max; null when neither reads. */
  maxPids: number | null;
}

/** One address on one of the host's interfaces (loopback excluded). */
export interface HostAddress {
  interfaceName: string;
  address: string;
  family: 4 | 6;
}

/**
 * Why a held lock file counts as contended: another process is blocked waiting for the lock, or
 * the lock file was removed or replaced (Go watches IN_OPEN and IN_DELETE_SELF).
 */
export type LockContention = { reason: 'waiter'; waiterPid: number } | { reason: 'lock-file-removed' };

/** run.oomScore: written, or refused for lack of CAP_SYS_RESOURCE (logged and ignored, as in Go). */
export type OomScoreOutcome = 'set' | 'permission-denied';

/**
 * run.sdNotify: `no-socket` when NOTIFY_SOCKET is unset (not under systemd); `unsupported` when
 * there is no way to send (no systemd-notify on the host); `failed` when sending failed. Go ignores
 * every failure here, so none of these is an error.
 */
export type SdNotifyOutcome = 'sent' | 'no-socket' | 'unsupported' | 'failed';
