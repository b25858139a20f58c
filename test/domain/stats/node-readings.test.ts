import { describe, expect, it } from 'vitest';
import { parseLoadAvgTasks, parseMemInfo, parsePidStat, parsePidStatus, parseProcStat, parseVmStat } from '../../../src/domain/stats/node-readings.js';

describe('the /proc parsers behind /stats/summary', () => {
  it('parseProcStat counts busy ticks (not idle, iowait or guest) as ns and reads btime', () => {
    const text = 'cpu  100 5 50 9000 40 3 2 1 7 0\ncpu0 50 2 25 4500 20 1 1 0 3 0\nbtime 1700000000\n';
    expect(parseProcStat(text)).toEqual({ cpuNs: (100n + 5n + 50n + 3n + 2n + 1n) * 10_000_000n, bootTimeSeconds: 1_700_000_000n });
    expect(parseProcStat('cpu 1 2 3 4\n')).toBeNull();
  });

  it('parseMemInfo reads the lines in bytes and needs MemTotal and MemFree', () => {
    const text = 'MemTotal:       16000 kB\nMemFree:         4000 kB\nInactive(file):   1000 kB\nAnonPages:  2000 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n';
    expect(parseMemInfo(text)).toEqual({ totalBytes: 16000n * 1024n, freeBytes: 4000n * 1024n, inactiveFileBytes: 1000n * 1024n, anonBytes: 2000n * 1024n, swapTotalBytes: 0n, swapFreeBytes: 0n });
    expect(parseMemInfo('MemFree: 1 kB\n')).toBeNull();
  });

  it('parseVmStat, parseLoadAvgTasks', () => {
    expect(parseVmStat('pgfault 123\npgmajfault 4\n')).toEqual({ pageFaults: 123n, majorPageFaults: 4n });
    expect(parseLoadAvgTasks('0.10 0.20 0.30 2/345 6789\n')).toBe(345);
    expect(parseLoadAvgTasks('garbage')).toBeNull();
  });

  it('parsePidStat reads fields after the last parenthesis of the command name', () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime prio nice threads itreal starttime
    const text = '42 (a) b) c) S 1 42 42 0 -1 0 11 0 2 0 300 200 40 10 20 0 1 0 5000 1000 50';
    expect(parsePidStat(text)).toEqual({ cpuTicks: 500n, childCpuTicks: 50n, minorFaults: 11n, majorFaults: 2n, pgrp: 42, startTicks: 5000n });
    expect(parsePidStat('42 (x) S 1')).toBeNull();
  });

  it('parsePidStatus reads VmRSS and RssAnon, 0 when absent (kernel threads)', () => {
    expect(parsePidStatus('Name:\tsh\nVmRSS:\t    2048 kB\nRssAnon:\t  512 kB\n')).toEqual({ residentBytes: 2048n * 1024n, anonBytes: 512n * 1024n });
    expect(parsePidStatus('Name:\tkthreadd\n')).toEqual({ residentBytes: 0n, anonBytes: 0n });
  });
});
