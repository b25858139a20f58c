/**
 * One window of a hostile-peer case, measured on the kubelet: its loop's longest stall (from
 * loop-probe.ts inside it), its RSS growth (the peak over the window less the RSS at its start) and
 * the CPU it used. The peak is the kernel's (VmHWM, reset through clear_refs), so a spike between two
 * samples counts. The CPU tells a loop that was busy from one that waited for a shared core.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import type { LoopWindow } from './loop-probe.js';

const MIB_KIB = 1024;

export interface WindowFigures {
  maxStallMs: number;
  rssGrowthMiB: number;
  cpuSeconds: number;
}

/** The kernel's clock ticks a second (USER_HZ), which /proc/<pid>/stat counts in. */
const USER_HZ = 100;

/** One request to the probe, its one-line answer parsed. */
export function askProbe<T>(socket: string, request: 'reset' | 'read'): Promise<T> {
  return new Promise((resolve, reject) => {
    const conn = createConnection(socket);
    let text = '';
    conn.setEncoding('utf8').on('data', (d: string) => { text += d; });
    conn.on('end', () => {
      try {
        resolve(JSON.parse(text) as T);
      } catch (err) {
        reject(err as Error);
      }
    });
    conn.on('error', reject);
    conn.write(`${request}\n`);
  });
}

/** A memory figure of /proc/<pid>/status, in KiB. */
export function statusKiB(pid: number | 'self', field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(m[1]);
}

/** User and system CPU of `pid` so far, in seconds (proc(5): fields 14 and 15 of stat, after the command's parenthesis). */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
}

/** Starts a window on the kubelet `pid`; the answer ends it. */
export async function openWindow(pid: number, probeSocket: string): Promise<() => Promise<WindowFigures>> {
  // 5: reset the peak RSS to the current one (proc(5), clear_refs).
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const startKiB = statusKiB(pid, 'VmRSS');
  const startCpu = cpuSecondsOf(pid);
  await askProbe(probeSocket, 'reset');
  return async () => {
    const loop = await askProbe<LoopWindow>(probeSocket, 'read');
    return { maxStallMs: loop.maxStallMs, rssGrowthMiB: (statusKiB(pid, 'VmHWM') - startKiB) / MIB_KIB, cpuSeconds: cpuSecondsOf(pid) - startCpu };
  };
}
