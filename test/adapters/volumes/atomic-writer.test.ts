import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeletError } from '../../../src/domain/errors.js';
import type { Payload } from '../../../src/domain/volumes/sources.js';
import { timestampedDirName, writePayloadAtomically, type AtomicWriteOptions } from '../../../src/adapters/volumes/atomic-writer.js';
import { inlineCalls, threadPoolCalls, type FsCalls } from '../../../src/adapters/volumes/fs-calls.js';
import { countedCalls } from './counted-fs-calls.js';

const payloadOf = (files: Record<string, string | [string, number]>): Payload =>
  new Map(Object.entries(files).map(([path, v]) => {
    const [text, mode] = typeof v === 'string' ? [v, 0o644] : v;
    return [path, { path, content: Buffer.from(text), mode }];
  }));

let dir: string;
let ticks: number;
// A clock that moves a second per write and a fixed draw sequence: names are predictable.
// Every case runs with both flavours of file system calls (fs-calls.ts).
let calls: FsCalls;
const seams = (): AtomicWriteOptions => ({ clock: { now: () => Date.UTC(2024, 4, 1, 12, 0, ticks++) }, random: { next: () => 0.5 }, calls });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'atomic-writer-'));
  ticks = 0;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The bound of the tests making thousands of calls: generous for a loaded 2-core machine (over 60 s at load 20). */
const MANY_CALLS_TIMEOUT_MS = 180_000;
/**
 * Files in the wide payload: far more than the 8 calls a write may have under way, few enough that
 * the six writes of the test take minutes at most on a loaded machine (10,000 took over 180 s).
 */
const WIDE_FILES = 4_000;
const entries = async () => (await readdir(dir)).sort();

/** Every entry below `root`: its kind, mode, and a link's target or a file's content. */
async function treeOf(root: string): Promise<{ path: string; kind: string; mode: string; value?: string }[]> {
  const out: { path: string; kind: string; mode: string; value?: string }[] = [];
  const visit = async (rel: string) => {
    for (const name of (await readdir(join(root, rel))).sort()) {
      const path = rel === '' ? name : `${rel}/${name}`;
      const full = join(root, path);
      const info = await lstat(full);
      const mode = (info.mode & 0o7777).toString(8);
      if (info.isSymbolicLink()) out.push({ path, kind: 'link', mode: '', value: await readlink(full) });
      else if (info.isDirectory()) {
        out.push({ path, kind: 'dir', mode });
        await visit(path);
      } else out.push({ path, kind: 'file', mode, value: await readFile(full, 'utf8') });
    }
  };
  await visit('');
  return out;
}
const modeOf = async (p: string) => ((await stat(join(dir, p))).mode & 0o7777).toString(8);

describe('timestampedDirName', () => {
  it('names the data directory ..YYYY_MM_DD_HH_MM_SS.<uint32> in UTC', () => {
    expect(timestampedDirName(Date.UTC(2016, 1, 1, 15, 4, 5), 0.25)).toBe('..2016_02_01_15_04_05.1073741824');
  });
});

describe.each([['through the thread pool', threadPoolCalls], ['inline', inlineCalls]] as const)('writePayloadAtomically, calls %s', (_, flavour) => {
  beforeEach(() => {
    calls = flavour;
  });

  it('writes a first payload into a timestamped directory behind ..data, with top-level links', async () => {
    const result = await writePayloadAtomically(dir, payloadOf({ name: 'web', 'conf/app.yaml': 'a: 1', 'conf/deep/x': 'x' }), seams());
    expect(result).toEqual({ changed: true });
    expect(await entries()).toEqual(['..2024_05_01_12_00_00.2147483648', '..data', 'conf', 'name']);
    expect(await readlink(join(dir, '..data'))).toBe('..2024_05_01_12_00_00.2147483648');
    expect(await readlink(join(dir, 'name'))).toBe('..data/name');
    expect(await readlink(join(dir, 'conf'))).toBe('..data/conf');
    expect((await lstat(join(dir, 'conf'))).isSymbolicLink()).toBe(true);
    expect(await readFile(join(dir, 'conf/deep/x'), 'utf8')).toBe('x');
    expect(await readFile(join(dir, 'name'), 'utf8')).toBe('web');
  });

  it('swaps ..data to a new directory on update, removes the old one and the links of names gone', async () => {
    await writePayloadAtomically(dir, payloadOf({ keep: 'v1', gone: 'old', 'sub/a': 'a' }), seams());
    const first = await readlink(join(dir, '..data'));
    const result = await writePayloadAtomically(dir, payloadOf({ keep: 'v2', fresh: 'new', 'sub/b': 'b' }), seams());
    expect(result.changed).toBe(true);
    const second = await readlink(join(dir, '..data'));
    expect(second).not.toBe(first);
    expect(await entries()).toEqual([second, '..data', 'fresh', 'keep', 'sub'].sort());
    expect(await readFile(join(dir, 'keep'), 'utf8')).toBe('v2');
    expect(await readFile(join(dir, 'fresh'), 'utf8')).toBe('new');
    expect(await readdir(join(dir, 'sub'))).toEqual(['b']);
  });

  it('writes nothing when ..data already holds the payload byte for byte and mode for mode', async () => {
    await writePayloadAtomically(dir, payloadOf({ a: 'same', 'd/b': ['same', 0o400] }), seams());
    const before = await readlink(join(dir, '..data'));
    const result = await writePayloadAtomically(dir, payloadOf({ a: 'same', 'd/b': ['same', 0o400] }), seams());
    expect(result).toEqual({ changed: false });
    expect(await readlink(join(dir, '..data'))).toBe(before);
  });

  it('rewrites when only a mode changed, or when only a file was dropped', async () => {
    await writePayloadAtomically(dir, payloadOf({ a: 'same', b: 'same' }), seams());
    expect((await writePayloadAtomically(dir, payloadOf({ a: ['same', 0o600], b: 'same' }), seams())).changed).toBe(true);
    expect(await modeOf('a')).toBe('600');
    expect((await writePayloadAtomically(dir, payloadOf({ a: ['same', 0o600] }), seams())).changed).toBe(true);
    expect(await entries()).not.toContain('b');
  });

  it('makes a missing top-level link even when the data is unchanged', async () => {
    await writePayloadAtomically(dir, payloadOf({ a: 'x' }), seams());
    await rm(join(dir, 'a'));
    expect((await writePayloadAtomically(dir, payloadOf({ a: 'x' }), seams())).changed).toBe(false);
    expect(await readFile(join(dir, 'a'), 'utf8')).toBe('x');
  });

  it('gives files their payload modes whatever the umask, and directories 0755', async () => {
    const previous = process.umask(0o077);
    try {
      await writePayloadAtomically(dir, payloadOf({ open: ['o', 0o644], secret: ['s', 0o400], 'd/x': ['x', 0o755] }), seams());
    } finally {
      process.umask(previous);
    }
    expect(await modeOf('open')).toBe('644');
    expect(await modeOf('secret')).toBe('400');
    expect(await modeOf('d/x')).toBe('755');
    expect(await modeOf('d')).toBe('755');
    expect(await modeOf('..data')).toBe('755');
  });

  it.each([
    ['/abs', 'invalid path: must be relative path: /abs'],
    ['a/../b', "invalid path: must not contain '..': a/../b"],
    ['..data', "invalid path: must not start with '..': ..data"],
  ])('refuses the payload path %j before touching the directory', async (path, message) => {
    const err = await writePayloadAtomically(dir, payloadOf({ [path]: 'x' }), seams()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeletError);
    expect((err as KubeletError).code).toBe('KLT_ERR_POD_SPEC_INVALID');
    expect((err as KubeletError).message).toBe(message);
    expect(await entries()).toEqual([]);
  });

  it('refuses a path that is both a file and a directory', async () => {
    const err = await writePayloadAtomically(dir, payloadOf({ a: '1', 'a/b': '2' }), seams()).catch((e: unknown) => e);
    expect((err as KubeletError).code).toBe('KLT_ERR_POD_SPEC_INVALID');
    expect(await entries()).toEqual([]);
  });

  it('fails with KLT_ERR_HOST_IO when the target directory does not exist', async () => {
    const err = await writePayloadAtomically(join(dir, 'missing'), payloadOf({ a: 'x' }), seams()).catch((e: unknown) => e);
    expect((err as KubeletError).code).toBe('KLT_ERR_HOST_IO');
    expect((err as KubeletError).retryable).toBe(true);
  });

  it('keeps the old content when the new data cannot be written, and leaves no half-written directory', async () => {
    await writePayloadAtomically(dir, payloadOf({ a: 'v1' }), seams());
    const before = await readlink(join(dir, '..data'));
    // A gid chown refuses: the failure comes after the new directory was made and partly written.
    const options: AtomicWriteOptions = { ...seams(), fsGroup: -5 };
    const err = await writePayloadAtomically(dir, payloadOf({ a: 'v2' }), options).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeletError);
    expect(await readlink(join(dir, '..data'))).toBe(before);
    expect(await entries()).toEqual([before, '..data', 'a'].sort());
    expect(await readFile(join(dir, 'a'), 'utf8')).toBe('v1');
  });

  it('clears a ..data_tmp and timestamped directories a crashed write left behind', async () => {
    await writePayloadAtomically(dir, payloadOf({ a: 'v1' }), seams());
    await mkdir(join(dir, '..2020_01_01_00_00_00.1'));
    await symlink('..2020_01_01_00_00_00.1', join(dir, '..data_tmp'));
    await writePayloadAtomically(dir, payloadOf({ a: 'v2' }), seams());
    const current = await readlink(join(dir, '..data'));
    expect(await entries()).toEqual([current, '..data', 'a'].sort());
  });

  it('leaves a ..data that points somewhere it did not make alone, writing beside it', async () => {
    await mkdir(join(dir, 'elsewhere'));
    await writeFile(join(dir, 'elsewhere', 'a'), 'foreign');
    await symlink('elsewhere', join(dir, '..data'));
    await writePayloadAtomically(dir, payloadOf({ a: 'mine' }), seams());
    expect(await readFile(join(dir, 'a'), 'utf8')).toBe('mine');
    expect(await readFile(join(dir, 'elsewhere', 'a'), 'utf8')).toBe('foreign');
  });

  it('writes the files of a payload side by side, and reads them so when checking for a change', async () => {
    // Calls that answer no file write (and no file read) until all three have begun: one after the
    // other, the write would never end.
    const gate = (n: number) => {
      let waiting: (() => void)[] = [];
      return () => new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (waiting.length === n) {
          waiting.forEach((r) => r());
          waiting = [];
        }
      });
    };
    const writes = gate(3);
    const reads = gate(3);
    calls = {
      ...flavour,
      writeFile: async (path, content, options) => {
        await writes();
        return flavour.writeFile(path, content, options);
      },
      readFile: async (path) => {
        await reads();
        return flavour.readFile(path);
      },
    };
    const payload = payloadOf({ a: 'a', b: 'b', 'sub/c': 'c' });
    expect(await writePayloadAtomically(dir, payload, seams())).toEqual({ changed: true });
    expect(await writePayloadAtomically(dir, payload, seams())).toEqual({ changed: false });
    expect(await readFile(join(dir, 'sub/c'), 'utf8')).toBe('c');
  }, 2000);

  it('serializes concurrent writes to one directory: the last payload wins', async () => {
    const writes = Array.from({ length: 10 }, (_, i) => writePayloadAtomically(dir, payloadOf({ a: `v${i}`, [`only${i}`]: 'x' }), seams()));
    await Promise.all(writes);
    expect(await readFile(join(dir, 'a'), 'utf8')).toBe('v9');
    expect((await entries()).filter((e) => !e.startsWith('..'))).toEqual(['a', 'only9']);
  });

  it(`has at most \`concurrency\` calls under way writing, checking and replacing ${WIDE_FILES} files, and writes what an unbounded write writes`, async () => {
    // Every call counted while under way: a file is open only inside a call.
    const { calls: counted, counts: stats } = countedCalls(flavour);
    const wide = (version: string, from: number) => payloadOf(Object.fromEntries(Array.from({ length: WIDE_FILES }, (_, i) => {
      const n = from + i;
      const path = n % 10 === 0 ? `d${n % 7}/k${n}` : `k${n}`;
      return [path, [`${version}${n}`, n % 3 === 0 ? 0o400 : 0o644]];
    })));
    // A first write, the same payload again (read back, unchanged), then one that changes every
    // file and drops the first 2,500 names (the old data removed).
    const writeThree = async (target: string, concurrency: number) => {
      ticks = 0;
      const results = [];
      for (const payload of [wide('a', 0), wide('a', 0), wide('b', 2_500)]) {
        results.push((await writePayloadAtomically(target, payload, { ...seams(), calls: counted, concurrency })).changed);
      }
      return results;
    };

    // In memory when the node has it: what is counted is calls, and a disk shared with other work
    // makes 100,000 of them take a minute.
    const base = await mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : dir, 'atomic-writer-wide-'));
    const [bounded, unbounded] = [join(base, 'bounded'), join(base, 'unbounded')];
    try {
      await Promise.all([mkdir(bounded), mkdir(unbounded)]);
      expect(await writeThree(bounded, 8)).toEqual([true, false, true]);
      expect(stats.max).toBeLessThanOrEqual(8);
      expect(stats.total).toBeGreaterThan(4 * WIDE_FILES);
      expect(await writeThree(unbounded, 1_000_000)).toEqual([true, false, true]);
      const tree = await treeOf(bounded);
      expect(await treeOf(unbounded)).toEqual(tree);

      // What readers see: ..data names the newest directory, the only one left; each name links through it.
      const dataDir = await readlink(join(bounded, '..data'));
      expect(tree.filter((e) => /^\.\.\d/.test(e.path) && !e.path.includes('/'))).toEqual([{ path: dataDir, kind: 'dir', mode: '755' }]);
      expect(tree.filter((e) => e.kind === 'file')).toHaveLength(WIDE_FILES);
      expect(tree.find((e) => e.path === 'k2501')).toEqual({ path: 'k2501', kind: 'link', mode: '', value: '..data/k2501' });
      expect(tree.find((e) => e.path === `${dataDir}/k2501`)).toEqual({ path: `${dataDir}/k2501`, kind: 'file', mode: '644', value: 'b2501' });
      expect(tree.find((e) => e.path === `${dataDir}/k2502`)).toMatchObject({ mode: '400', value: 'b2502' });
      expect(tree.find((e) => e.path === `${dataDir}/d4/k2510`)).toMatchObject({ mode: '644', value: 'b2510' });
      expect(tree.find((e) => e.path === 'k2499')).toBeUndefined();
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  }, MANY_CALLS_TIMEOUT_MS);

  describe.runIf(process.getuid?.() === 0)('with an fsGroup (as root)', () => {
    it('gives every entry the group, files g+r, directories g+rx and setgid, the fsUser its file', async () => {
      const payload = payloadOf({ token: ['t', 0o600], 'conf/a': ['a', 0o644], key: ['k', 0o400] });
      payload.set('token', { ...payload.get('token')!, fsUser: 1234 });
      await writePayloadAtomically(dir, payload, { ...seams(), fsGroup: 2000 });
      expect(await modeOf('token')).toBe('640');
      expect(await modeOf('key')).toBe('440');
      expect(await modeOf('conf/a')).toBe('644');
      expect(await modeOf('conf')).toBe('2755');
      expect(await modeOf('..data')).toBe('2755');
      expect(await modeOf('.')).toMatch(/^2\d\d\d$/);
      const token = await stat(join(dir, 'token'));
      expect([token.uid, token.gid]).toEqual([1234, 2000]);
      expect((await stat(join(dir, 'key'))).gid).toBe(2000);
      expect((await lstat(join(dir, 'key'))).gid).toBe(2000);
      expect((await stat(dir)).gid).toBe(2000);
    });

    it('reads an unchanged payload as unchanged with the fsGroup modes in place', async () => {
      const payload = payloadOf({ key: ['k', 0o400] });
      await writePayloadAtomically(dir, payload, { ...seams(), fsGroup: 2000 });
      expect((await writePayloadAtomically(dir, payload, { ...seams(), fsGroup: 2000 })).changed).toBe(false);
    });
  });

  it('never lets a concurrent reader see a mixed or empty file across 200 updates', async () => {
    const size = 64 * 1024;
    const versioned = (v: number): Payload => {
      const chunk = `v${v}|`;
      const text = chunk.repeat(Math.ceil(size / chunk.length));
      return payloadOf({ a: text, 'nested/b': text });
    };
    await writePayloadAtomically(dir, versioned(0), seams());

    // The reader is another thread, so its reads really interleave with the writer's syscalls.
    const reader = new Worker(`
      const { parentPort, workerData } = require('node:worker_threads');
      const { readFileSync, realpathSync } = require('node:fs');
      const { join } = require('node:path');
      let stop = false, reads = 0, missing = 0;
      const bad = [];
      parentPort.on('message', () => { stop = true; });
      const versionOf = (text) => {
        const chunk = text.slice(0, text.indexOf('|') + 1);
        if (chunk === '' || text.length === 0) return undefined;
        return text === chunk.repeat(text.length / chunk.length) ? chunk : undefined;
      };
      function loop() {
        for (let i = 0; i < 200 && !stop; i++) {
          try {
            const a = readFileSync(join(workerData, 'a'), 'utf8');
            if (versionOf(a) === undefined) bad.push('a:' + a.slice(0, 20) + '..(' + a.length + ')');
            // Both files through one resolution of ..data: always the same version.
            const data = realpathSync(join(workerData, '..data'));
            const x = readFileSync(join(data, 'a'), 'utf8');
            const y = readFileSync(join(data, 'nested', 'b'), 'utf8');
            if (versionOf(x) === undefined || versionOf(x) !== versionOf(y)) bad.push('pair:' + x.slice(0, 8) + '/' + y.slice(0, 8));
            reads++;
          } catch (err) {
            // The old directory can be deleted between resolving ..data and opening a file in it.
            if (err.code === 'ENOENT') missing++; else bad.push(String(err));
          }
        }
        if (stop) parentPort.postMessage({ reads, missing, bad });
        else setImmediate(loop);
      }
      loop();
    `, { eval: true, workerData: dir });
    const report = new Promise<{ reads: number; missing: number; bad: string[] }>((resolve, reject) => {
      reader.once('message', resolve);
      reader.once('error', reject);
    });

    for (let v = 1; v <= 200; v++) await writePayloadAtomically(dir, versioned(v), seams());
    reader.postMessage('stop');
    const { reads, missing, bad } = await report;
    await reader.terminate();

    expect(bad).toEqual([]);
    expect(reads).toBeGreaterThan(0);
    expect(missing).toBeLessThan(reads);
    expect((await readFile(join(dir, 'a'), 'utf8')).startsWith('v200|')).toBe(true);
    expect((await entries()).filter((e) => e.startsWith('..20'))).toHaveLength(1);
  }, MANY_CALLS_TIMEOUT_MS);
});
