/**
 * State and checkpoint files a kubelet finds at start-up, each read by the daemon's own readers in a
 * process of its own (hostile-state-file-child.ts): a 1 GiB cpu_manager_state, a FIFO in place of
 * the device manager's checkpoint, and a cpu_manager_state of valid JSON with a wrong checksum both
 * over its size bound (63 MiB) and just under it, the costliest file the bound lets through.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CPU_MANAGER_STATE_MAX_BYTES } from '../src/domain/resource-managers/state-file-limits.js';
import type { StateFileRead } from './hostile-state-file-child.js';
import type { HostileResult } from './hostile-case.js';
import type { WindowFigures } from './loop-window.js';

const MIB = 1024 * 1024;

export interface StateFileCase {
  name: string;
  /** Puts the hostile file into a fresh root dir. */
  plant(rootDir: string, devicePluginsDir: string): void;
}

/** A file of `bytes` that reads as zeros, without writing them. */
function sparse(path: string, bytes: number): void {
  const fd = openSync(path, 'w');
  writeSync(fd, Buffer.from([0]), 0, 1, bytes - 1);
  closeSync(fd);
}

/** A cpu_manager_state of `bytes` at most, in the v2 format, with entries for many pods and a checksum that does not match. */
function manyPodsCpuState(path: string, bytes: number): void {
  const fd = openSync(path, 'w');
  writeSync(fd, '{"policyName":"none","defaultCpuSet":"","entries":{');
  const pod = (i: number) => `"${String(i).padStart(8, '0')}-0000-0000-0000-000000000000":{"c0":"0-1","c1":"2-3","c2":"4-5"},`;
  const tail = '"last":{}},"checksum":1}';
  let written = 64;
  let batch: string[] = [];
  for (let i = 0; written + pod(i).length + tail.length <= bytes; i++) {
    batch.push(pod(i));
    written += pod(i).length;
    if (batch.length < 1000) continue;
    writeSync(fd, batch.join(''));
    batch = [];
  }
  writeSync(fd, batch.join('') + tail);
  closeSync(fd);
}

export const STATE_FILE_CASES: StateFileCase[] = [
  { name: 'state file: a 1 GiB cpu_manager_state', plant: (root) => sparse(join(root, 'cpu_manager_state'), 1024 * MIB) },
  { name: 'state file: a FIFO as the device checkpoint', plant: (_root, dp) => { spawnSync('mkfifo', [join(dp, 'kubelet_internal_checkpoint')]); } },
  { name: 'state file: a 63 MiB cpu_manager_state (valid JSON, wrong checksum)', plant: (root) => manyPodsCpuState(join(root, 'cpu_manager_state'), 63 * MIB) },
  { name: 'state file: a cpu_manager_state just under its bound (valid JSON, wrong checksum)', plant: (root) => manyPodsCpuState(join(root, 'cpu_manager_state'), CPU_MANAGER_STATE_MAX_BYTES) },
];

/** The case's read, in a child, on a fresh root dir that is removed afterwards. */
export function readPlanted(c: StateFileCase): HostileResult & WindowFigures {
  const dir = mkdtempSync(join(tmpdir(), 'kts-bench-hostile-state-'));
  try {
    const root = join(dir, 'root');
    const devicePluginsDir = join(root, 'device-plugins');
    mkdirSync(devicePluginsDir, { recursive: true });
    c.plant(root, devicePluginsDir);
    const child = fileURLToPath(new URL('./hostile-state-file-child.js', import.meta.url));
    const r = spawnSync(process.execPath, [child, root, devicePluginsDir], { encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`the state file read failed: ${r.stderr || r.error?.message}`);
    const read = JSON.parse(r.stdout) as StateFileRead;
    return {
      outcome: read.refusal === null ? 'answered' : 'refused',
      detail: `${read.refusal === null ? 'taken' : `"${read.refusal.replaceAll(root, '<root-dir>').slice(0, 140)}"`} in ${Math.round(read.ms)} ms`,
      maxStallMs: read.maxStallMs,
      rssGrowthMiB: read.rssGrowthMiB,
      cpuSeconds: read.cpuSeconds,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
