import { mkdtempSync, renameSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ExitWatch } from '../../../../src/adapters/embedded-runtime/containers/exit-watch.js';
import { EXIT_FILE } from '../../../../src/adapters/embedded-runtime/shim/shim-protocol.js';

/**
 * Writes `name` into `dir` and resolves once a watch of our own on `dir` has seen it. Linux delivers a
 * directory's inotify events in order, and Node hands each one to every watch of that directory before
 * the next: so by then every watch there has been told about everything written to `dir` before it.
 */
const barrier = (dir: string, name: string) =>
  new Promise<void>((resolve, reject) => {
    const watcher = watch(dir, (_event, file) => {
      if (file !== name) return;
      watcher.close();
      resolve();
    });
    watcher.on('error', reject);
    writeFileSync(join(dir, name), '');
  });

describe('ExitWatch', () => {
  let now = 0;
  const watchers: ExitWatch[] = [];
  const dirs: string[] = [];
  const make = () => {
    const w = new ExitWatch(() => now, 5_000);
    watchers.push(w);
    const dir = mkdtempSync(join(tmpdir(), 'kts-exit-watch-'));
    dirs.push(dir);
    return { w, dir };
  };
  afterEach(() => {
    watchers.splice(0).forEach((w) => w.close());
    dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
    now = 0;
  });

  it('asks for a full check first, then not again until the shim writes exit.json', async () => {
    const { w, dir } = make();
    expect(w.needsCheck('c1', () => dir)).toBe('full');
    w.checked('c1');
    expect(w.needsCheck('c1', () => dir)).toBe('none');
    writeFileSync(join(dir, 'started.json'), '{}');
    // An absence: once a file written after it has been seen, the watch has seen started.json too, and
    // must not ask for a check for it.
    await barrier(dir, 'barrier');
    expect(w.needsCheck('c1', () => dir)).toBe('none');
    writeFileSync(join(dir, `${EXIT_FILE}.tmp`), '{}');
    renameSync(join(dir, `${EXIT_FILE}.tmp`), join(dir, EXIT_FILE));
    await barrier(dir, 'barrier-after-exit');
    expect(w.needsCheck('c1', () => dir)).toBe('full');
  });

  it('re-checks liveness only once the last check is older than the recheck period, naming the directory only at the start', () => {
    const { w, dir } = make();
    const named: string[] = [];
    const shimDir = () => { named.push(dir); return dir; };
    w.needsCheck('c1', shimDir);
    w.checked('c1');
    now = 4_999;
    expect(w.needsCheck('c1', shimDir)).toBe('none');
    now = 5_000;
    expect(w.needsCheck('c1', shimDir)).toBe('liveness');
    w.checked('c1');
    expect(w.needsCheck('c1', shimDir)).toBe('none');
    expect(named).toHaveLength(1);
  });

  it('always checks a container whose directory cannot be watched', () => {
    const { w, dir } = make();
    const missing = join(dir, 'gone');
    expect(w.needsCheck('c2', () => missing)).toBe('full');
    w.checked('c2');
    expect(w.needsCheck('c2', () => missing)).toBe('full');
  });

  it('starts afresh for a container it was told to forget', () => {
    const { w, dir } = make();
    w.needsCheck('c1', () => dir);
    w.checked('c1');
    w.forget('c1');
    expect(w.needsCheck('c1', () => dir)).toBe('full');
  });
});
