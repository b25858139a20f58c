/**
 * Process identity on Linux: a pid alone can be recycled, so a process is named by its pid plus its
 * start time (field 22 of /proc/<pid>/stat, in clock ticks since boot). Used to adopt containers
 * after a restart without mistaking an unrelated process that got the same pid for ours.
 *
 * This module imports nothing from the project: the detached shim uses it too.
 */
import { readFileSync } from 'node:fs';

export interface ProcessIdentity {
  pid: number;
  /** /proc/<pid>/stat field 22, as a decimal string (it is an unsigned long long). */
  startTime: string;
}

export interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
  startTime: string;
}

/**
 * Parses /proc/<pid>/stat. The command name (field 2) is in parentheses and may itself contain spaces
 * and parentheses, so fields are counted from the last ')'.
 */
export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  // After ')' come fields 3 (state), 4 (ppid), 5 (pgrp) … 22 (starttime), one space apart. Only
  // the first twenty are cut out: this runs for every container every few seconds, and the line
  // has fifty-two fields.
  const rest: string[] = [];
  let at = close + 2;
  while (rest.length < 20 && at < text.length) {
    const space = text.indexOf(' ', at);
    const end = space < 0 ? text.length : space;
    rest.push(text.slice(at, end).trim());
    at = end + 1;
  }
  const state = rest[0];
  const ppid = Number(rest[1]);
  const pgrp = Number(rest[2]);
  const startTime = rest[19];
  if (!Number.isInteger(pid) || state === undefined || startTime === undefined || !/^\d+$/.test(startTime)) {
    return undefined;
  }
  return { pid, state, ppid, pgrp, startTime };
}

export function readProcStat(pid: number, procRoot = '/proc'): ProcStat | undefined {
  try {
    return parseProcStat(readFileSync(`${procRoot}/${pid}/stat`, 'utf8'));
  } catch {
    return undefined; // gone (ENOENT/ESRCH) or unreadable: either way not a process we can vouch for
  }
}

/** The identity of a live process, or undefined when it is gone or already a zombie. */
export function identifyProcess(pid: number, procRoot = '/proc'): ProcessIdentity | undefined {
  const stat = readProcStat(pid, procRoot);
  if (!stat || isDeadState(stat.state)) return undefined;
  return { pid, startTime: stat.startTime };
}

/** True when `identity` still names the same live process (same pid and same start time). */
export function isSameProcessAlive(identity: ProcessIdentity, procRoot = '/proc'): boolean {
  const current = identifyProcess(identity.pid, procRoot);
  return current !== undefined && current.startTime === identity.startTime;
}

// Z: exited and waiting to be reaped; X: dead. Neither runs anything any more.
function isDeadState(state: string): boolean {
  return state === 'Z' || state === 'X';
}
