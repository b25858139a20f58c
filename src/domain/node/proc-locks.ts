/**
 * Reading /proc/locks for the lock-file contention watch. Each lock is one line; a process blocked
 * waiting for a lock is listed under it with `->`:
 *
 *   1: FLOCK  ADVISORY  WRITE 4895 fe:00:2146729 0 EOF
 *   1: -> FLOCK  ADVISORY  WRITE 4899 fe:00:2146729 0 EOF
 *
 * The file is named by device major:minor (hex, as the kernel prints them) and inode (decimal).
 */

export interface FileIdentity {
  major: number;
  minor: number;
  inode: bigint;
}

/** Linux's dev_t encoding (glibc `major()`/`minor()`), for the `dev` that fs.stat returns. */
export function splitDevice(dev: bigint): { major: number; minor: number } {
  const major = Number(((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn));
  const minor = Number((dev & 0xffn) | ((dev >> 12n) & ~0xffn));
  return { major, minor };
}

/** PIDs of processes blocked waiting for a flock(2) lock on `file`. */
export function findFlockWaiters(procLocks: string, file: FileIdentity): number[] {
  const pids: number[] = [];
  for (const line of procLocks.split('\n')) {
    const match = /^\s*\d+:\s+->\s+FLOCK\s+\S+\s+\S+\s+(-?\d+)\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s/.exec(line);
    if (!match) continue;
    const [, pid, major, minor, inode] = match;
    if (pid === undefined || major === undefined || minor === undefined || inode === undefined) continue;
    if (Number.parseInt(major, 16) === file.major && Number.parseInt(minor, 16) === file.minor && BigInt(inode) === file.inode) {
      pids.push(Number(pid));
    }
  }
  return pids;
}
