/**
 * The daemon loads a server's modules only when it starts that server, and no subcommand's: start-up
 * time is mostly module loading (docs/BENCHMARKS.md). Checked on the built binary, with a resolve
 * hook that logs every module the process loads until the supervisor reaches `running`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/daemon.js';

const BIN = resolve('dist/src/bin/kubelet.js');
const REGISTER = resolve('test/support/module-log/register.mjs');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The modules the daemon loaded up to `running`, as paths under dist/ or node_modules/. */
async function modulesUntilRunning(flags: string[]): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'kts-lazy-'));
  dirs.push(dir);
  const log = join(dir, 'modules.txt');
  const child = spawn(process.execPath, [
    '--import', REGISTER, BIN, '--container-runtime-endpoint=embedded', `--root-dir=${join(dir, 'root')}`,
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
}

// The debug server's journal feed is not among them: the journal fills it whether or not a server reads it.
const serverModules = (loaded: string[]) => loaded.filter((m) =>
  m.startsWith('node_modules/fastify/') || (m.includes('/adapters/debug-server/') && !m.endsWith('/journal-feed.js'))
  || m.includes('/adapters/visualizer/') || m.includes('/adapters/http/kubelet-server/') || m.endsWith('/adapters/http/healthz.js'));

describe('the daemon\'s modules', () => {
  it('loads no server and no subcommand when every server is off', async () => {
    const loaded = await modulesUntilRunning(['--debug-address=', '--healthz-port=0', '--enable-server=false']);
    expect(loaded).toContain('dist/src/bin/daemon.js');
    expect(serverModules(loaded)).toEqual([]);
    expect(loaded.filter((m) => m.includes('/bin/commands/'))).toEqual([]);
    // The certificate renewal's adapters wait for the first renewal.
    expect(loaded.filter((m) => m.endsWith('/adapters/certificates/renewal.js') || m.endsWith('/adapters/pki/x509.js'))).toEqual([]);
    expect(loaded).toContain('dist/src/bin/certificate-renewal.js');
  }, 30_000);

  it('loads each server it starts', async () => {
    const loaded = await modulesUntilRunning([
      `--debug-address=127.0.0.1:${await freePort()}`, `--healthz-port=${await freePort()}`, '--healthz-bind-address=127.0.0.1',
      `--port=${await freePort()}`, '--address=127.0.0.1', '--read-only-port=0',
    ]);
    const servers = serverModules(loaded);
    expect(servers).toEqual(expect.arrayContaining([
      'node_modules/fastify/fastify.js', 'dist/src/adapters/debug-server/server.js',
      'dist/src/adapters/http/kubelet-server/server.js', 'dist/src/adapters/http/healthz.js',
    ]));
    // healthz listens before the CRI's gRPC modules are loaded (at run.preInitRuntime): it waits for neither.
    const grpc = loaded.findIndex((m) => m.startsWith('node_modules/@grpc/grpc-js/'));
    expect(grpc).toBeGreaterThan(loaded.indexOf('dist/src/adapters/http/healthz.js'));
    expect(loaded.indexOf('dist/src/adapters/http/healthz.js')).toBeGreaterThan(-1);
  }, 30_000);
});
