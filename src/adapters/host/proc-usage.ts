/**
 * CPU and memory of processes, from /proc: one process (the kubelet itself), or whole process
 * groups (the embedded runtime's containers, each its own group). Parsing is in
 * src/domain/stats/node-readings.ts.
 *
 * A group's CPU is the utime + stime of every live member plus their cutime + cstime: the time of
 * children they have already reaped. So a short-lived child (a `sleep 1` in a shell loop) still
 * counts once it is waited for; only a child whose parent died and that init reaped is lost.
 * Memory is the sum of the members' VmRSS (working set) and RssAnon (rss): pages shared between
 * members (the same binary, shared libraries) are counted once per member, so the sum can exceed
 * what a cgroup would charge.
 */
import { readFile, readdir } from 'node:fs/promises';
import { NS_PER_CLOCK_TICK, parsePidStat, parsePidStatus, type ProcessUsage } from '../../domain/stats/node-readings.js';
import { allBounded } from '../fs/bounded-calls.js';

/** /proc files read at once by one pass over the node's processes. */
const procReadConcurrency = 16;

export interface PidUsage extends ProcessUsage {
  pgrp: number;
  /** Clock ticks after boot at which the process started. */
  startTicks: bigint;
}

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null; // the process ended between listing and reading: it no longer counts
  }
}

export async function readPidUsage(pid: number, procRoot = '/proc'): Promise<PidUsage | null> {
  const statText = await readOrNull(`${procRoot}/${pid}/stat`);
  const stat = statText === null ? null : parsePidStat(statText);
  if (!stat) return null;
  const statusText = await readOrNull(`${procRoot}/${pid}/status`);
  const mem = statusText === null ? { residentBytes: 0n, anonBytes: 0n } : parsePidStatus(statusText);
  return {
    cpuNs: (stat.cpuTicks + stat.childCpuTicks) * NS_PER_CLOCK_TICK,
    residentBytes: mem.residentBytes,
    anonBytes: mem.anonBytes,
    minorFaults: stat.minorFaults,
    majorFaults: stat.majorFaults,
    pgrp: stat.pgrp,
    startTicks: stat.startTicks,
  };
}

export interface GroupUsage extends ProcessUsage {
  processes: number;
}

/** The summed usage of each wanted process group, from one pass over /proc. Groups with no live member are absent. */
export async function readProcessGroupUsage(groups: ReadonlySet<number>, procRoot = '/proc'): Promise<Map<number, GroupUsage>> {
  const out = new Map<number, GroupUsage>();
  if (groups.size === 0) return out;
  const pids = (await readdir(procRoot)).filter((name) => /^\d+$/.test(name)).map(Number);
  // Reading stat first and status only for members keeps the pass cheap on a busy host. A pod can
  // fork thousands of processes: the files are read a few at a time, never all open at once.
  await allBounded(pids, procReadConcurrency, async (pid) => {
    const text = await readOrNull(`${procRoot}/${pid}/stat`);
    const stat = text === null ? null : parsePidStat(text);
    const hit = stat && groups.has(stat.pgrp) ? { pid, stat } : null;
    if (!hit) return;
    const statusText = await readOrNull(`${procRoot}/${hit.pid}/status`);
    const mem = statusText === null ? { residentBytes: 0n, anonBytes: 0n } : parsePidStatus(statusText);
    const sum = out.get(hit.stat.pgrp) ?? { cpuNs: 0n, residentBytes: 0n, anonBytes: 0n, minorFaults: 0n, majorFaults: 0n, processes: 0 };
    sum.cpuNs += (hit.stat.cpuTicks + hit.stat.childCpuTicks) * NS_PER_CLOCK_TICK;
    sum.residentBytes += mem.residentBytes;
    sum.anonBytes += mem.anonBytes;
    sum.minorFaults += hit.stat.minorFaults;
    sum.majorFaults += hit.stat.majorFaults;
    sum.processes += 1;
    out.set(hit.stat.pgrp, sum);
  });
  return out;
}
