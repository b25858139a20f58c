/**
 * A process's memory and CPU from /proc, the way the node e2e resource checks read
 * them: VmRSS from status, PSS from smaps_rollup (shared pages divided among their users, so shims
 * that share Node's text are not counted a hundred times), utime+stime from stat.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { NS_PER_CLOCK_TICK, parsePidStat, parsePidStatus, parseProcStat } from '../src/domain/stats/node-readings.js';


function kib(text: string, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

/** VmRSS in MiB; 0 when the process is gone. */
export function rssMiB(pid: number): number {
  try {
    return Number(parsePidStatus(readFileSync(`/proc/${pid}/status`, 'utf8')).residentBytes) / 1024 / 1024;
  } catch {
    return 0;
  }
}

/** Proportional set size in MiB; 0 when the process is gone or smaps_rollup is unreadable. */
export function pssMiB(pid: number): number {
  try {
    return kib(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'), 'Pss') / 1024;
  } catch {
    return 0;
  }
}

/**
 * utime + stime in seconds of the process's main thread (the event loop, where JavaScript runs)
 * alone; cpuSeconds less this is its other threads: V8's GC and compiler threads, libuv's pool (file
 * system calls, with the kernel's time in them).
 */
export const mainThreadCpuSeconds = (pid: number): number => statCpuSeconds(`/proc/${pid}/task/${pid}/stat`);

/**
 * The whole machine's busy CPU in seconds (/proc/stat, every core): what a burst costs the kubelet,
 * its runtime, the containers and the bench's own API server together.
 */
export function machineCpuSeconds(): number {
  const stat = parseProcStat(readFileSync('/proc/stat', 'utf8'));
  if (!stat) throw new Error('/proc/stat has no cpu line');
  return Number(stat.cpuNs) / 1e9;
}

/**
 * utime + stime in seconds of each of the process's threads, in the order they were started (by
 * thread id; the main thread first). Node starts V8's worker threads before libuv's pool.
 */
export function threadCpuSeconds(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`).map(Number).sort((a, b) => a - b)) {
    try {
      out.set(tid, statCpuSeconds(`/proc/${pid}/task/${tid}/stat`));
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** utime + stime in seconds. */
export const cpuSeconds = (pid: number): number => statCpuSeconds(`/proc/${pid}/stat`);

function statCpuSeconds(path: string): number {
  const stat = parsePidStat(readFileSync(path, 'utf8'));
  if (!stat) throw new Error(`${path} is not a stat line`);
  return Number(stat.cpuTicks * NS_PER_CLOCK_TICK) / 1e9;
}

/** PIDs whose command line contains `needle` (e.g. a state directory the processes were given). */
export function pidsWithCommandLine(needle: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(needle)) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** VmRSS split into its anonymous pages (heaps, stacks) and file pages (node's text, mapped files), in MiB; zeros when gone. */
export function rssPartsMiB(pid: number): { anon: number; file: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return { anon: kib(status, 'RssAnon') / 1024, file: kib(status, 'RssFile') / 1024 };
  } catch {
    return { anon: 0, file: 0 };
  }
}
