/**
 * --lock-file and --exit-on-lock-contention with two real kubelets, as an upgrade hands over a node:
 * the second waits on the lock (saying so), the first sees the contention and stops in order (exit 0),
 * and the second then takes the lock and starts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TextFeed } from '../support/text-feed.js';
import { KUBELET_BIN as BIN } from '../support/kubelet-bin.js';

const dir = mkdtempSync(join(tmpdir(), 'kts-lock-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function start(name: string) {
  const child = spawn(process.execPath, [
    BIN, `--root-dir=${join(dir, name)}`, `--device-plugins-dir=${join(dir, name)}/device-plugins`, `--lock-file=${join(dir, 'kubelet.lock')}`, '--exit-on-lock-contention',
    `--container-runtime-endpoint=unix://${join(dir, 'no-runtime.sock')}`, '--debug-address=', '--healthz-port=0',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  const stderr = new TextFeed();
  // 'close', not 'exit': then its stderr has been read to the end too.
  const exit = new Promise<number | null>((r) => child.on('close', r));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => stderr.push(d));
  /** Resolves on the stderr chunk that brings `needle`; fails if the kubelet exits first. */
  const logged = (what: string, needle: string) => stderr.waitFor(needle, `${name} ${what}`, { ended: exit, timeoutMs: 20_000 });
  return { child, out: { stderr, exit }, logged };
}

describe('--exit-on-lock-contention', () => {
  it('hands the node over: the holder stops cleanly when a second kubelet waits for the lock', async () => {
    const a = start('a');
    // A holds the lock and goes on to wait for its (absent) runtime.
    await a.logged('past the lock', '"phase":"run.configz"');
    const b = start('b');
    // B says it waits and for which file (#14), before A, seeing it, stops.
    await b.logged('saying it waits', '"msg":"Waiting for the lock file: another process holds it"');
    expect(b.out.stderr.value).toContain(`"path":${JSON.stringify(join(dir, 'kubelet.lock'))}`);
    expect(await a.out.exit).toBe(0);
    expect(a.out.stderr.value).toMatch(/"signal":"lock file contended by pid \d+"/);
    await b.logged('past the lock', '"phase":"run.configz"');
    b.child.kill('SIGTERM');
    expect(await b.out.exit).toBe(0);
  }, 40_000);
});
