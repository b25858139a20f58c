import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createPluginSocketWatcher, type PluginSocketWatchHandle } from '../../../src/adapters/csi/plugin-socket-watcher.js';
import { PLUGIN_WATCH_BOUNDS, type PluginWatchBounds } from '../../../src/adapters/csi/plugin-watch-bounds.js';
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

/** Error lines the watcher logs: message and path under the registry. */
function errorLog(dir: string) {
  const errors: { msg: string; path: string }[] = [];
  const log = pino({ level: 'error' }, { write: (line: string) => {
    const { msg, path } = JSON.parse(line) as { msg: string; path: string };
    errors.push({ msg, path: path.slice(dir.length + 1) });
  } });
  return { log, errors };
}

async function watching(bounds: Partial<PluginWatchBounds> = {}) {
  const base = mkdtempSync(join(tmpdir(), 'plugin-watch-'));
  dirs.push(base);
  const dir = join(base, 'plugins_registry');
  const seen: string[] = [];
  const { log, errors } = errorLog(dir);
  const watcher = createPluginSocketWatcher(log, { ...PLUGIN_WATCH_BOUNDS, ...bounds });
  return { base, dir, seen, errors, start: async (signal?: AbortSignal, onCreated?: (path: string) => void): Promise<PluginSocketWatchHandle> => {
    const handle = await watcher.watch(dir, {
      onCreated: (p) => {
        seen.push(`created ${p.slice(dir.length + 1)}`);
        onCreated?.(p);
      },
      onRemoved: (p) => seen.push(`removed ${p.slice(dir.length + 1)}`),
    }, signal);
    stops.push(() => handle.stop());
    return handle;
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

  it('never reports a socket under a symlinked directory, at start or later, but reports a symlink to a socket as Go does', async () => {
    const w = await watching();
    const host = join(w.base, 'host');
    mkdirSync(host);
    mkdirSync(w.dir);
    await socketAt(join(host, 'host.sock'));
    symlinkSync(host, join(w.dir, 'linked'));
    // Go's walk hands the link to IsUnixDomainSocket, which stats through it.
    symlinkSync(join(host, 'host.sock'), join(w.dir, 'link-reg.sock'));
    const handle = await w.start();
    expect(w.seen).toEqual(['created link-reg.sock']);
    expect(handle.watchedDirs()).toBe(1);
    // A link made later is not entered either, and the target's new sockets stay unseen.
    symlinkSync(host, join(w.dir, 'linked-later'));
    await socketAt(join(host, 'later.sock'));
    await socketAt(join(w.dir, 'after-reg.sock'));
    await until('the socket after the links', () => w.seen.includes('created after-reg.sock'), 5_000);
    expect(w.seen).toEqual(['created link-reg.sock', 'created after-reg.sock']);
    expect(handle.watchedDirs()).toBe(1);
  });

  it('returns at once over two links to `.` and one to `..`, watches only the real directories, and reports a socket made afterwards', async () => {
    const w = await watching();
    mkdirSync(join(w.dir, 'sub'), { recursive: true });
    symlinkSync('.', join(w.dir, 'loop-a'));
    symlinkSync('.', join(w.dir, 'loop-b'));
    symlinkSync('..', join(w.dir, 'sub', 'up'));
    await socketAt(join(w.dir, 'sub', 'a-reg.sock'));
    const started = Date.now();
    const handle = await w.start();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(handle.watchedDirs()).toBe(2);
    expect(w.seen).toEqual(['created sub/a-reg.sock']);
    await socketAt(join(w.dir, 'b-reg.sock'));
    await until('the socket made afterwards', () => w.seen.includes('created b-reg.sock'), 5_000);
    expect(w.seen).toEqual(['created sub/a-reg.sock', 'created b-reg.sock']);
    expect(w.errors).toEqual([]);
  });

  it('logs one error naming the first directory past the depth bound, watches what is within it, and keeps serving', async () => {
    const w = await watching({ maxDepth: 2 });
    mkdirSync(join(w.dir, 'a', 'b', 'c', 'd'), { recursive: true });
    mkdirSync(join(w.dir, 'a', 'b', 'e'), { recursive: true });
    await socketAt(join(w.dir, 'a', 'one-reg.sock'));
    await socketAt(join(w.dir, 'a', 'b', 'two-reg.sock'));
    await socketAt(join(w.dir, 'a', 'b', 'c', 'deep-reg.sock'));
    const handle = await w.start();
    // Depth first, names sorted, as Go's walk goes.
    expect(w.seen).toEqual(['created a/b/two-reg.sock', 'created a/one-reg.sock']);
    expect(handle.watchedDirs()).toBe(3);
    expect(w.errors).toEqual([{ msg: expect.stringMatching(/deeper than the watch bound/) as string, path: 'a/b/c' }]);
    await socketAt(join(w.dir, 'a', 'b', 'three-reg.sock'));
    await until('a socket within the bound', () => w.seen.includes('created a/b/three-reg.sock'), 5_000);
  });

  it('logs one error naming the first directory past the directories bound, and keeps serving the watched ones', async () => {
    const w = await watching({ maxDirs: 3 });
    for (const d of ['d1', 'd2', 'd3', 'd4', 'd5']) mkdirSync(join(w.dir, d), { recursive: true });
    await socketAt(join(w.dir, 'd2', 'x-reg.sock'));
    await socketAt(join(w.dir, 'd4', 'y-reg.sock'));
    const handle = await w.start();
    expect(w.seen).toEqual(['created d2/x-reg.sock']);
    expect(handle.watchedDirs()).toBe(3);
    expect(w.errors).toEqual([{ msg: expect.stringMatching(/too many directories/) as string, path: 'd3' }]);
    await socketAt(join(w.dir, 'd1', 'z-reg.sock'));
    await until('a socket in a watched directory', () => w.seen.includes('created d1/z-reg.sock'), 5_000);
  });

  it('cuts a listing longer than the entries bound, and tracks no more sockets than it, each logged once', async () => {
    const w = await watching({ maxEntries: 3 });
    mkdirSync(join(w.dir, 'many'), { recursive: true });
    for (const f of ['f1', 'f2', 'f3', 'f4']) writeFileSync(join(w.dir, 'many', f), '');
    for (const s of ['s1-reg.sock', 's2-reg.sock']) await socketAt(join(w.dir, s));
    const handle = await w.start();
    expect(w.errors).toEqual([{ msg: expect.stringMatching(/more entries than the bound/) as string, path: 'many' }]);
    expect(handle.watchedDirs()).toBe(2);
    await socketAt(join(w.dir, 'many', 'later-reg.sock'));
    await until('a third socket', () => w.seen.length === 3, 5_000);
    await socketAt(join(w.dir, 's3-reg.sock'));
    await until('the fourth socket refused', () => w.errors.length === 2, 5_000);
    expect(w.errors[1]).toEqual({ msg: expect.stringMatching(/too many sockets/) as string, path: 's3-reg.sock' });
    expect(w.seen).toEqual(['created s1-reg.sock', 'created s2-reg.sock', 'created many/later-reg.sock']);
  });

  it('ends the first walk promptly when its signal aborts mid-walk, closing every watch', async () => {
    const w = await watching({ maxDirs: 5_000 });
    for (let p = 0; p < 40; p++) for (let c = 0; c < 50; c++) mkdirSync(join(w.dir, `p${p.toString().padStart(2, '0')}`, `c${c.toString().padStart(2, '0')}`), { recursive: true });
    await socketAt(join(w.dir, 'p20', 'c00', 'midway-reg.sock'));
    await socketAt(join(w.dir, 'p39', 'c49', 'last-reg.sock'));
    const abort = new AbortController();
    let abortedAt = 0;
    const handle = await w.start(abort.signal, () => {
      abortedAt = Date.now();
      abort.abort();
    });
    expect(abortedAt).toBeGreaterThan(0);
    expect(Date.now() - abortedAt).toBeLessThan(5_000);
    expect(w.seen).toEqual(['created p20/c00/midway-reg.sock']);
    expect(handle.watchedDirs()).toBe(0);
  });
});
