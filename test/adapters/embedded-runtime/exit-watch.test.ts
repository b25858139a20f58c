import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ExitWatch } from '../../../src/adapters/embedded-runtime/exit-watch.js';
import { EXIT_FILE } from '../../../src/adapters/embedded-runtime/shim-protocol.js';
import { seenByAnotherWatch } from '../../support/fs-watch-barrier.js';

const until = async (what: string, cond: () => boolean) => {
  const deadline = Date.now() + 5_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

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
    const seen = seenByAnotherWatch(dir, 'started.json');
    writeFileSync(join(dir, 'started.json'), '{}');
    await seen; // the watch has seen started.json too, and must not ask for a check for it
    expect(w.needsCheck('c1', () => dir)).toBe('none');
    writeFileSync(join(dir, `${EXIT_FILE}.tmp`), '{}');
    renameSync(join(dir, `${EXIT_FILE}.tmp`), join(dir, EXIT_FILE));
    await until('the watch to mark the container', () => w.needsCheck('c1', () => dir) === 'full');
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
