/**
 * Start-up with the journal on against off, for what the journal adds to a start: the real binary
 * on the embedded runtime, spawn → the supervisor reaches `running` (its log line), alternating
 * on/off runs in one process so the noisy 2-core machine treats both alike. Medians, and the ratio
 * on/off.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KUBELET_BIN as BIN } from './kubelet-bin.js';

function startOnce(args: string[]): Promise<number> {
  return new Promise((done, fail) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let elapsed: number | null = null;
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (elapsed === null && stderr.includes('"phase":"running"')) {
        elapsed = Number(process.hrtime.bigint() - t0) / 1e6;
        child.kill('SIGTERM');
      }
    });
    child.on('exit', () => {
      clearTimeout(timer);
      if (elapsed === null) fail(new Error(`daemon did not reach running:\n${stderr.slice(-2000)}`));
      else done(elapsed);
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchStartup(runs = 5): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'kts-bench-startup-'));
  try {
    const on: number[] = [];
    const off: number[] = [];
    for (let i = 0; i < runs; i++) {
      const common = (tag: string) => [
        '--container-runtime-endpoint=embedded', `--root-dir=${join(dir, `${tag}-${i}`)}`, `--device-plugins-dir=${join(dir, `${tag}-${i}`, 'device-plugins')}`, '--debug-address=', '--healthz-port=0',
        '--enable-server=false', '--fail-swap-on=false',
      ];
      on.push(await startOnce(common('on')));
      off.push(await startOnce([...common('off'), '--event-log=']));
    }
    return {
      runs,
      startToRunningMsJournalOn: Math.round(median(on)),
      startToRunningMsJournalOff: Math.round(median(off)),
      journalStartupCostRatio: Number((median(on) / median(off)).toFixed(3)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
