/**
 * `kubelet-ts report --compare` on real recordings: start-ups of this build, standalone on the
 * embedded runtime served from this process behind a socket proxy; the delayed ones with the
 * runtime's first connection held 500 ms (slow-socket-proxy.ts), a delay from outside the kubelet
 * that lands in run.preInitRuntime. Three recordings a side, as the CI step takes them, so that a
 * busy machine's noise does not decide: the same build compared with itself passes with the
 * default thresholds; the delayed start-ups fail, naming that phase.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordStartup } from '../../bench/record-startup.js';
import { startEmbeddedRuntime, type EmbeddedRuntime } from '../../src/adapters/embedded-runtime/index.js';
import { KUBELET_BIN as BIN } from '../support/kubelet-bin.js';
import { startSlowSocketProxy } from '../support/slow-socket-proxy.js';

const INJECTED_MS = 500;

let dir: string;
let runtime: EmbeddedRuntime;
const RECORDINGS = 3;
const logs: Record<'warmUp' | 'baseline' | 'same' | 'delayed', string[]> = { warmUp: [], baseline: [], same: [], delayed: [] };

/** `count` start-ups, each through a fresh proxy in front of the runtime, its first connection held `holdMs`. */
async function recordThroughProxy(name: keyof typeof logs, holdMs: number, count = RECORDINGS): Promise<void> {
  for (let i = 0; i < count; i++) {
    const proxy = await startSlowSocketProxy({ path: join(dir, `${name}-${i}.sock`), upstream: runtime.endpoint.replace(/^unix:\/\//, ''), firstConnectionHoldMs: holdMs });
    try {
      logs[name].push(await recordStartup(join(dir, `${name}-${i}`), `unix://${proxy.path}`));
    } finally {
      await proxy.close();
    }
  }
}

/** `--compare` for each baseline, then the logs compared with them. */
const compare = (current: string[]) => [...logs.baseline.flatMap((b) => ['--compare', b]), ...current];

function report(args: string[]) {
  return spawnSync(process.execPath, [BIN, 'report', ...args], { encoding: 'utf8', timeout: 30_000 });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kts-compare-'));
  runtime = await startEmbeddedRuntime({ socketPath: join(dir, 'runtime.sock'), stateDir: join(dir, 'runtime') });
  // A first start-up, not compared: the first after the runtime's start pays for warming the file
  // cache and the runtime, a cost that is none of the builds' doing.
  await recordThroughProxy('warmUp', 0, 1);
  await recordThroughProxy('baseline', 0);
  await recordThroughProxy('same', 0);
  await recordThroughProxy('delayed', INJECTED_MS);
}, 300_000);

afterAll(async () => {
  await runtime?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('kubelet-ts report --compare', () => {
  it('passes two start-ups of the same build with the default thresholds, exit 0', () => {
    const r = report(compare(logs.same));
    expect(r.stderr).toBe('');
    expect(r.stdout, r.stdout).toMatch(/\ncompare: ok\n$/);
    expect(r.stdout).toMatch(/time to Ready \(sync loop syncing\): baseline \+\d+ms, current \+\d+ms/);
    expect(r.status).toBe(0);
  });

  it('fails the start-up with 500 ms injected in one phase, exit 1, naming that phase', () => {
    const r = report(compare(logs.delayed));
    expect(r.stdout).toMatch(/run\.preInitRuntime\s.*REGRESSED/);
    expect(r.stdout).toMatch(/\ncompare: regressed: run\.preInitRuntime: \d+ms → \d+ms \(\+\d+ms, ×[\d.]+\)/);
    expect(r.status).toBe(1);
    const json = report([...compare(logs.delayed), '--json']);
    expect(json.status).toBe(1);
    const c = JSON.parse(json.stdout) as { phases: { phase: string; regression: boolean; current: { durationMs: number } }[]; ready: { marker: string } };
    const regressed = c.phases.filter((p) => p.regression);
    expect(regressed.map((p) => p.phase), r.stdout).toEqual(['run.preInitRuntime']);
    // The held connection is answered no sooner than the hold: the delay is in the phase named.
    expect(regressed[0]!.current.durationMs).toBeGreaterThanOrEqual(INJECTED_MS);
    expect(c.ready.marker).toBe('syncLoopSyncing');
  });

  it('passes the delayed start-up when the thresholds allow it', () => {
    const r = report([...compare(logs.delayed), '--max-added-ms', '5000', '--max-ready-added-ms', '5000']);
    expect(r.stdout).toMatch(/\ncompare: ok\n$/);
    expect(r.status).toBe(0);
  });

  it('exits 2 for a log that is not a log, a log without a start-up, a missing LOG or a bad threshold, naming what is wrong', () => {
    const notALog = join(dir, 'not-a-log.jsonl');
    writeFileSync(notALog, '{"hello":1}\n');
    const noStartup = join(dir, 'no-startup.jsonl');
    // The header alone: the journal of a run that never started its supervisor.
    writeFileSync(noStartup, readFileSync(logs.baseline[0]!, 'utf8').split('\n')[0] + '\n');
    const [baseline, same] = [logs.baseline[0]!, logs.same[0]!];
    const cases: [string[], RegExp][] = [
      [['--compare', notALog, same], /report: .*not-a-log\.jsonl/],
      [['--compare', baseline, same, noStartup], /no-startup\.jsonl: no start-up in this log/],
      [['--compare', baseline], /needs the LOG to compare with it/],
      [['--compare', baseline, same, '--max-ratio', '0.5'], /--max-ratio must be a number of at least 1, got "0\.5"/],
      [['--compare', baseline, same, '--max-added-ms', 'soon'], /--max-added-ms must be a number of milliseconds/],
      [['--compare', baseline, same, '--max-ready-added-ms=-1'], /--max-ready-added-ms must be a number of milliseconds, at least 0, got "-1"/],
      [[baseline, '--max-ratio', '2'], /--max-ratio, --max-added-ms and --max-ready-added-ms go with --compare/],
      [[baseline, same], /unexpected argument: .*same-0/],
    ];
    for (const [args, message] of cases) {
      const r = report(args);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.status, args.join(' ')).toBe(2);
    }
  });
});

