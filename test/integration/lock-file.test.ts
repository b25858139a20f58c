/**
 * --lock-file and --exit-on-lock-contention with two real kubelets, as an upgrade hands over a node:
 * the second waits on the lock (saying so), the first sees the contention and stops in order (exit 0),
 * and the second then takes the lock and starts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = resolve('dist/src/bin/kubelet.js');
const dir = mkdtempSync(join(tmpdir(), 'kts-lock-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function start(name: string) {
  const child = spawn(process.execPath, [
    BIN, `--root-dir=${join(dir, name)}`, `--lock-file=${join(dir, 'kubelet.lock')}`, '--exit-on-lock-contention',
    `--container-runtime-endpoint=unix://${join(dir, 'no-runtime.sock')}`, '--debug-address=',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  const out = { stderr: '', exit: new Promise<number | null>((r) => child.on('exit', r)) };
  child.stderr!.on('data', (d: Buffer) => (out.stderr += d.toString()));
  return { child, out };
}

async function until(what: string, ok: () => boolean, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('--exit-on-lock-contention', () => {
  it('hands the node over: the holder stops cleanly when a second kubelet waits for the lock', async () => {
    const a = start('a');
    // A holds the lock and goes on to wait for its (absent) runtime.
    await until('a past the lock', () => a.out.stderr.includes('"phase":"run.configz"'));
    const b = start('b');
    // B says it waits and for which file (#14), before A, seeing it, stops.
    await until('b saying it waits', () => b.out.stderr.includes('"msg":"Waiting for the lock file: another process holds it"'));
    expect(b.out.stderr).toContain(`"path":${JSON.stringify(join(dir, 'kubelet.lock'))}`);
    expect(await a.out.exit).toBe(0);
    expect(a.out.stderr).toMatch(/"signal":"lock file contended by pid \d+"/);
    await until('b past the lock', () => b.out.stderr.includes('"phase":"run.configz"'));
    b.child.kill('SIGTERM');
    expect(await b.out.exit).toBe(0);
  }, 40_000);
});
