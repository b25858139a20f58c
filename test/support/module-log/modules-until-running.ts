/**
 * The modules a kubelet binary loads until its supervisor reaches `running`, logged by the resolve
 * hook of register.mjs, as paths under dist/ or node_modules/ (module loading is most of start-up
 * time and much of an idle daemon's heap, so tests check what is loaded and when).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REGISTER = resolve('test/support/module-log/register.mjs');

/** `bin` (a built kubelet.js) standalone on `endpoint`, with its root and certificates in a directory of its own, and `flags`. */
export async function modulesUntilRunning(bin: string, endpoint: string, flags: readonly string[]): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'kts-modules-'));
  try {
    const log = join(dir, 'modules.txt');
    const child = spawn(process.execPath, [
      '--import', REGISTER, bin, `--container-runtime-endpoint=${endpoint}`, `--root-dir=${join(dir, 'root')}`, `--device-plugins-dir=${join(dir, 'root', 'device-plugins')}`,
      `--cert-dir=${join(dir, 'pki')}`, '--fail-swap-on=false', ...flags,
    ], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, MODULE_LOG: log } });
    let stderr = '';
    await new Promise<void>((done, fail) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('"phase":"running"')) done();
      });
      child.once('exit', () => fail(new Error(`the kubelet exited before running:\n${stderr.slice(-2000)}`)));
    });
    const loaded = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
    return loaded.map((url) => url.replace(/^.*\/(dist|node_modules)\//, '$1/'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
