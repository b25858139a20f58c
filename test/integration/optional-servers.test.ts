/**
 * Issue 14 with the real binary: optional servers whose ports are taken (items 12) do not stop the
 * start-up; they log the address and the reason, and listen once the port is free. The same run
 * checks the journal (item 10): a --manifest-url-header value never reaches it, and its files are 0600.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeServerTestConfig } from '../support/server-test-config.js';
import { freePort, until } from '../support/daemon.js';
import { KUBELET_BIN as BIN } from '../support/kubelet-bin.js';

const SECRET = 'hunter2-manifest-token';
const dir = mkdtempSync(join(tmpdir(), 'kts-optional-'));
let daemon: ChildProcess | undefined;
const squatters: Server[] = [];

afterAll(async () => {
  if (daemon && daemon.exitCode === null) daemon.kill('SIGKILL');
  for (const s of squatters) s.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Another process's listener on a loopback port. */
async function squat(port: number): Promise<Server> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  squatters.push(server);
  return server;
}

describe('optional servers on taken ports (#14)', () => {
  it('starts anyway, logs address and reason, listens once the ports are free; the journal keeps no header value, 0600', async () => {
    const [debugPort, readOnlyPort, port] = [await freePort(), await freePort(), await freePort()];
    const debugSquatter = await squat(debugPort);
    const readOnlySquatter = await squat(readOnlyPort);
    mkdirSync(join(dir, 'manifests'));
    writeServerTestConfig(dir, { port, readOnlyPort });
    let stderr = '';
    daemon = spawn(process.execPath, [
      BIN, `--config=${join(dir, 'kubelet.yaml')}`, `--root-dir=${join(dir, 'root')}`, `--device-plugins-dir=${join(dir, 'root')}/device-plugins`, `--cert-dir=${join(dir, 'pki')}`,
      `--debug-address=127.0.0.1:${debugPort}`, '--hostname-override=node-o',
      '--manifest-url=http://127.0.0.1:1/pod.yaml', '--manifest-url-header', `Authorization:Bearer ${SECRET}`,
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    daemon.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((done) => daemon!.once('exit', done));

    await until('the kubelet running', () => stderr.includes('"phase":"running"'), 40_000, () => stderr);
    const warnings = stderr.split('\n').filter((l) => l.includes('Optional server cannot listen')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(warnings).toEqual(expect.arrayContaining([
      expect.objectContaining({ server: 'debug server', address: `127.0.0.1:${debugPort}`, reason: expect.stringContaining('EADDRINUSE') }),
      expect.objectContaining({ server: 'read-only server', address: `127.0.0.1:${readOnlyPort}`, reason: expect.stringContaining('EADDRINUSE') }),
    ]));
    expect(stderr).not.toContain('"msg":"Debug server listening"');

    await new Promise((done) => debugSquatter.close(done));
    await new Promise((done) => readOnlySquatter.close(done));
    await until('the debug server', async () => (await fetch(`http://127.0.0.1:${debugPort}/debug/actors`)).status === 200, 20_000, () => stderr);
    await until('the read-only server', async () => (await fetch(`http://127.0.0.1:${readOnlyPort}/healthz`)).status === 200, 20_000, () => stderr);

    daemon.kill('SIGTERM');
    expect(await exited).toBe(0);
    const events = join(dir, 'root', 'events');
    const files = readdirSync(events).filter((f) => f !== 'latest.jsonl');
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      expect((statSync(join(events, f)).mode & 0o777).toString(8)).toBe('600');
      expect(readFileSync(join(events, f), 'utf8')).not.toContain(SECRET);
    }
    expect(readFileSync(join(events, files[0]!), 'utf8')).toContain('"--manifest-url-header","Authorization:<redacted>"');
  }, 90_000);
});
