import { mkdirSync, mkdtempSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createPluginSocketWatcher } from '../../../src/adapters/csi/plugin-socket-watcher.js';
import { until } from '../../support/daemon.js';

const logger = pino({ level: 'silent' });
const servers: Server[] = [];
const dirs: string[] = [];
const stops: (() => void)[] = [];

/** A unix socket listening at `path`, as a plugin's registration server. */
function socketAt(path: string): Promise<Server> {
  const server = createServer();
  servers.push(server);
  return new Promise((resolve) => server.listen(path, () => resolve(server)));
}
const closed = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

async function watching() {
  const base = mkdtempSync(join(tmpdir(), 'plugin-watch-'));
  dirs.push(base);
  const dir = join(base, 'plugins_registry');
  const seen: string[] = [];
  return { base, dir, seen, start: async () => {
    const handle = await createPluginSocketWatcher(logger).watch(dir, {
      onCreated: (p) => seen.push(`created ${p.slice(dir.length + 1)}`),
      onRemoved: (p) => seen.push(`removed ${p.slice(dir.length + 1)}`),
    });
    stops.push(() => handle.stop());
  } };
}

afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await Promise.all(servers.splice(0).map((s) => (s.listening ? closed(s) : undefined)));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('createPluginSocketWatcher', () => {
  it('makes the directory 0750 when missing', async () => {
    const w = await watching();
    await w.start();
    expect(statSync(w.dir).mode & 0o777).toBe(0o750);
  });

  it('reports the sockets there at start, in subdirectories too, and ignores dot-files and plain files', async () => {
    const w = await watching();
    mkdirSync(join(w.dir, 'sub'), { recursive: true });
    await socketAt(join(w.dir, 'a-reg.sock'));
    await socketAt(join(w.dir, 'sub', 'b-reg.sock'));
    await socketAt(join(w.dir, '.hidden.sock'));
    writeFileSync(join(w.dir, 'not-a-socket'), '');
    await w.start();
    expect(w.seen).toEqual(['created a-reg.sock', 'created sub/b-reg.sock']);
  });

  it('reports a socket created, removed, and created again, and one in a directory made later', async () => {
    const w = await watching();
    await w.start();
    const server = await socketAt(join(w.dir, 'x-reg.sock'));
    await until('the new socket', () => w.seen.includes('created x-reg.sock'), 5_000);
    await closed(server);
    await until('the socket removed', () => w.seen.includes('removed x-reg.sock'), 5_000);
    await socketAt(join(w.dir, 'x-reg.sock'));
    await until('the socket again', () => w.seen.filter((s) => s === 'created x-reg.sock').length === 2, 5_000);
    // Made while watched: a socket there is found by the new watch or by the walk that follows it.
    mkdirSync(join(w.dir, 'later'));
    await socketAt(join(w.dir, 'later', 'y-reg.sock'));
    await until('the socket in the new directory', () => w.seen.includes('created later/y-reg.sock'), 5_000);
    expect(w.seen).toEqual(['created x-reg.sock', 'removed x-reg.sock', 'created x-reg.sock', 'created later/y-reg.sock']);
  });

  it('tells a socket replaced under the same path (another inode) as created again', async () => {
    const w = await watching();
    await w.start();
    const path = join(w.dir, 'z-reg.sock');
    const first = await socketAt(path);
    await until('the socket', () => w.seen.length === 1, 5_000);
    // The driver restarts without cleaning up: its old socket file is replaced by a new one.
    first.close();
    try { unlinkSync(path); } catch { /* closed already removed it */ }
    await socketAt(path);
    await until('the new socket', () => w.seen.filter((s) => s === 'created z-reg.sock').length === 2, 5_000);
  });

  it('rejects when the directory cannot be made', async () => {
    const w = await watching();
    writeFileSync(join(w.base, 'file'), '');
    await expect(createPluginSocketWatcher(logger).watch(join(w.base, 'file', 'plugins_registry'), { onCreated: () => {}, onRemoved: () => {} })).rejects.toThrow(/ENOTDIR/);
  });
});
