import { describe, expect, it } from 'vitest';
import { watchdogHealthProblem, watchdogSetting } from '../../../src/domain/node/systemd-watchdog.js';

describe('watchdogSetting (sd_watchdog_enabled)', () => {
  it('is off without WATCHDOG_USEC: not run by systemd, or a unit without WatchdogSec', () => {
    expect(watchdogSetting({}, 42)).toEqual({ enabled: false });
    expect(watchdogSetting({ WATCHDOG_USEC: '' }, 42)).toEqual({ enabled: false });
  });

  it('feeds at half the timeout when WATCHDOG_PID is ours or absent', () => {
    expect(watchdogSetting({ WATCHDOG_USEC: '20000000', WATCHDOG_PID: '42' }, 42)).toEqual({ enabled: true, timeoutMs: 20_000, intervalMs: 10_000 });
    expect(watchdogSetting({ WATCHDOG_USEC: '3000000' }, 42)).toEqual({ enabled: true, timeoutMs: 3000, intervalMs: 1500 });
  });

  it("is off when WATCHDOG_PID names another process (an inherited environment)", () => {
    expect(watchdogSetting({ WATCHDOG_USEC: '20000000', WATCHDOG_PID: '7' }, 42)).toEqual({ enabled: false });
  });

  it('refuses malformed values, naming the variable', () => {
    expect(String(watchdogSetting({ WATCHDOG_USEC: 'soon' }, 42))).toContain('WATCHDOG_USEC must be a positive number');
    expect(String(watchdogSetting({ WATCHDOG_USEC: '0' }, 42))).toContain('WATCHDOG_USEC must be a positive number');
    expect(String(watchdogSetting({ WATCHDOG_USEC: '-5' }, 42))).toContain('WATCHDOG_USEC');
    expect(String(watchdogSetting({ WATCHDOG_USEC: '20000000', WATCHDOG_PID: 'me' }, 42))).toContain('WATCHDOG_PID must be a process id');
  });

  it('refuses a timeout of a second or less, as Go (minimalNotifyInterval)', () => {
    expect(String(watchdogSetting({ WATCHDOG_USEC: '1000000' }, 42))).toContain('configure watchdog timeout too small: 1000ms');
    expect(watchdogSetting({ WATCHDOG_USEC: '1000001' }, 42)).toMatchObject({ enabled: true });
  });
});

describe('watchdogHealthProblem', () => {
  it('passes when every check passes, else names the first failed one', () => {
    expect(watchdogHealthProblem([{ name: 'ping', problem: null }, { name: 'syncloop', problem: null }])).toBeNull();
    expect(watchdogHealthProblem([
      { name: 'ping', problem: null },
      { name: 'syncloop', problem: 'the syncLoop is not running' },
      { name: 'other', problem: 'x' },
    ])).toBe('checker syncloop failed: the syncLoop is not running');
  });
});
