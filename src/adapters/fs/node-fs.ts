/**
 * The file system as the garbage collectors and initializeModules use it (GcHost's directory
 * operations, mkdir -p), over node:fs.
 */
import { readdir, rm, statfs } from 'node:fs/promises';
import { makeKubeletDirectory } from './make-directories.js';
import type { DataDirectory } from '../../domain/node/data-directories.js';
import type { GcHost } from '../../ports/gc-host.js';

export const nodeGcFs: Omit<GcHost, 'activePods'> = {
  // A directory that is gone has no subdirectories to collect.
  listDirs: async (d) => (await readdir(d, { withFileTypes: true }).catch(() => [])).filter((e) => e.isDirectory()).map((e) => e.name),
  removeDir: (p) => rm(p, { recursive: true, force: true }),
  fsUsage: async (p) => {
    const s = await statfs(p);
    return { capacityBytes: s.blocks * s.bsize, availableBytes: s.bavail * s.bsize };
  },
};

/** mkdir -p of each directory with its mode, in order (make-directories.ts: never Node's recursive mkdir, which spins under /proc). */
export async function makeDirectories(dirs: readonly DataDirectory[]): Promise<void> {
  for (const { path, mode } of dirs) await makeKubeletDirectory(path, mode);
}
