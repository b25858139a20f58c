import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { startSystemdWatchdog, WATCHDOG_RETRY_MS } from '../../../src/actors/node/systemd-watchdog.js';
import type { SdNotifyOutcome } from '../../../src/domain/node/host-types.js';

const settle = () => new Promise((resolve) => setImmediate(resolve));

function setup(outcomes: SdNotifyOutcome[] = []) {
  const clock = new SimulatedClock();
  const sends: number[] = [];
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => { const l = JSON.parse(line); lines.push({ level: l.level, msg: l.msg }); } });
  const notifier = { notifyWatchdog: async (): Promise<SdNotifyOutcome> => { sends.push(clock.now()); return outcomes.shift() ?? 'sent'; } };
  let problem: string | null = null;
  const stop = startSystemdWatchdog({ clock, intervalMs: 10_000, notifier, checks: () => [{ name: 'ping', problem: null }, { name: 'syncloop', problem }], logger });
  const advance = async (ms: number) => { clock.increment(ms); await settle(); };
  return { clock, sends, lines, stop, advance, setProblem: (p: string | null) => (problem = p) };
}

describe('startSystemdWatchdog', () => {
  it('feeds at once and then every interval while healthy', async () => {
    const w = setup();
    await settle();
    await w.advance(10_000);
    await w.advance(10_000);
    expect(w.sends).toEqual([0, 10_000, 20_000]);
    expect(w.lines[0]).toMatchObject({ msg: 'Starting systemd watchdog with interval' });
    w.stop();
    await w.advance(30_000);
    expect(w.sends).toHaveLength(3);
  });

  it('skips a round while a health check fails, and feeds again once it passes', async () => {
    const w = setup();
    await settle();
    w.setProblem('the syncLoop is not running');
    await w.advance(10_000);
    expect(w.sends).toEqual([0]);
    expect(w.lines.some((l) => l.level === 50 && l.msg === 'Do not notify watchdog this iteration as the kubelet is reportedly not healthy')).toBe(true);
    w.setProblem(null);
    await w.advance(10_000);
    expect(w.sends).toEqual([0, 20_000]);
    w.stop();
  });

  it('tries a failed send once more a second later, then logs the failure', async () => {
    const w = setup(['failed', 'failed', 'failed', 'sent']);
    await settle();
    expect(w.sends).toEqual([0]);
    await w.advance(WATCHDOG_RETRY_MS);
    expect(w.sends).toEqual([0, 1000]);
    expect(w.lines.filter((l) => l.msg === 'Failed to notify watchdog')).toHaveLength(1);
    // The next round is an interval after this one ended.
    await w.advance(10_000);
    await w.advance(WATCHDOG_RETRY_MS);
    expect(w.sends).toEqual([0, 1000, 11_000, 12_000]);
    w.stop();
  });

  it('does not retry when there is no socket to send to', async () => {
    const w = setup(['no-socket']);
    await settle();
    await w.advance(WATCHDOG_RETRY_MS);
    expect(w.sends).toEqual([0]);
    expect(w.lines.some((l) => l.msg === 'Failed to notify watchdog')).toBe(true);
    w.stop();
  });
});
