/**
 * Which file system a bench's kubelet root dir lies on, and, for ext4, whether it keeps a journal.
 *
 * It matters to every figure that makes files: an ext4 without a journal (this machine's root, for
 * one) checks each free inode it is about to hand out against the inode table and skips those
 * deleted in the last minute (six when the table's block is still dirty), so right after the test
 * suites or a bench's own teardown have deleted many files, each new inode costs up to a millisecond
 * of kernel CPU. With a journal (mkfs.ext4's default, and what a node's /var/lib/kubelet usually
 * lies on) the check is skipped. The bench prints this beside its figures.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { MountTable, parseMountInfo } from '../src/adapters/host/mount-info.js';

export interface RootFileSystem {
  mountPoint: string;
  fsType: string;
  /** The block device's kernel name (vda, loop0, dm-1), or null for a file system without one. */
  device: string | null;
  /** ext4 only: whether it has a journal; null for other file systems or when it cannot be told. */
  journal: boolean | null;
}

export function rootFileSystem(dir: string): RootFileSystem {
  const real = realpathSync(dir);
  const mount = new MountTable(parseMountInfo(readFileSync('/proc/self/mountinfo', 'utf8'))).mountOf(real);
  const device = blockDeviceName(statSync(real).dev);
  const fsType = mount?.fsType ?? 'unknown';
  return {
    mountPoint: mount?.mountPoint ?? '?', fsType, device,
    journal: fsType === 'ext4' && device !== null ? hasJournal(device, journalNames()) : null,
  };
}

/** jbd2 names each journal `<device>-<journal inode>` under /proc/fs/jbd2 (one per journaled ext4 mounted). */
export function hasJournal(device: string, jbd2Entries: readonly string[]): boolean {
  return jbd2Entries.some((entry) => entry.slice(0, entry.lastIndexOf('-')) === device);
}

export function describeRootFileSystem(fs: RootFileSystem): string {
  const where = `${fs.fsType}${fs.device ? ` on ${fs.device}` : ''}, mounted at ${fs.mountPoint}`;
  if (fs.journal === false) return `${where}, without a journal: ext4 then skips recently deleted inodes on every create, and each costs kernel CPU after a teardown (docs/BENCHMARKS.md)`;
  return fs.journal ? `${where}, with a journal` : where;
}

function journalNames(): string[] {
  try {
    return readdirSync('/proc/fs/jbd2');
  } catch {
    return [];
  }
}

/** The kernel's name for the block device behind a stat's dev number; null for a file system without one. */
function blockDeviceName(dev: number): string | null {
  // Linux's dev_t: the minor's low byte, the major's 12 bits, then the minor's high bits.
  const major = Math.floor(dev / 256) & 0xfff;
  const minor = (dev & 0xff) | (Math.floor(dev / 2 ** 20) & ~0xff);
  try {
    return basename(realpathSync(`/sys/dev/block/${major}:${minor}`));
  } catch {
    return null;
  }
}
