import { spawn } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { identifyProcess, isSameProcessAlive, parseProcStat } from '../../../../src/adapters/embedded-runtime/shim/proc-stat.js';

describe('parseProcStat', () => {
  it('counts fields from the last parenthesis, so a command name with spaces and parens parses', () => {
    const line = '4242 (we ird) (name)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100 18446744073709551615';
    expect(parseProcStat(line)).toEqual({ pid: 4242, state: 'S', ppid: 1, pgrp: 4242, startTime: '987654' });
  });

  it.each(['', 'garbage', '12 (x) S 1 2'])('rejects %j', (text) => {
    expect(parseProcStat(text)).toBeUndefined();
  });
});

describe('process identity', () => {
  it('identifies this process and tells a recycled pid (other start time) from the original', () => {
    const me = identifyProcess(process.pid);
    expect(me?.pid).toBe(process.pid);
    expect(isSameProcessAlive(me!)).toBe(true);
    expect(isSameProcessAlive({ pid: process.pid, startTime: `${BigInt(me!.startTime) + 1n}` })).toBe(false);
  });

  it('reports a process gone once it has exited and been reaped', async () => {
    const child = spawn('sh', ['-c', 'exit 0']);
    const identity = { pid: child.pid!, startTime: identifyProcess(child.pid!)?.startTime ?? '0' };
    await new Promise((resolve) => child.once('exit', resolve));
    await vi.waitFor(() => expect(isSameProcessAlive(identity)).toBe(false), { timeout: 2000, interval: 5 });
    expect(identifyProcess(2 ** 22 + 1)).toBeUndefined();
  });
});
