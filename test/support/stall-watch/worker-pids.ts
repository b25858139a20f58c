import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where a test worker says which process runs a test file, so the stall watch in vitest's main process
 * can end that one process and leave the other worker's file running. One directory per vitest run,
 * named by the main process (a forked worker's parent).
 */
export function workerPidDir(vitestPid: number): string {
  return join(tmpdir(), `kts-stall-watch-${vitestPid}`);
}

export function workerPidFile(vitestPid: number, testFile: string): string {
  return join(workerPidDir(vitestPid), createHash('sha1').update(testFile).digest('hex').slice(0, 16));
}
