import { appendFile, mkdtemp, open, readdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readContainerLog, tailStartOffset } from '../../../src/adapters/fs/container-log-reader.js';
import type { LogOptions } from '../../../src/domain/kubelet-server/log-options.js';
import { createChangeWaiter } from '../../support/change-waiter.js';
import { copiedBytes } from '../../support/copied-bytes.js';
import { plantedLogDirectory } from './planted-log-directory.js';

// A full collection on demand (vitest's workers run without --expose-gc).
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

let dir: string;
beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'klt-reader-')); });
afterEach(async () => {
  vi.useRealTimers();
  await rm(dir, { recursive: true, force: true });
});

async function offset(content: string, n: number): Promise<number> {
  const p = join(dir, 'f');
  await writeFile(p, content);
  const fh = await open(p, 'r');
  try {
    return await tailStartOffset(fh, n);
  } finally {
    await fh.close();
  }
}

const ALL: LogOptions = { follow: false, previous: false, timestamps: false, tailLines: null, limitBytes: null, sinceMs: null };

async function collect(path: string, opts: LogOptions): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of readContainerLog(path, opts)) parts.push(c);
  return Buffer.concat(parts).toString('utf8');
}

describe('tailStartOffset', () => {
  it.each([
    ['a\nb\nc\n', 1, 4], ['a\nb\nc\n', 2, 2], ['a\nb\nc\n', 3, 0], ['a\nb\nc\n', 9, 0],
    ['a\nb\nc', 1, 4], ['a\nb\nc', 2, 2], ['', 3, 0], ['a\nb\n', 0, 4],
  ])('finds where the last lines of %j start (n=%i → %i)', async (content, n, want) => {
    expect(await offset(content, n)).toBe(want);
  });

  it('works across read chunks', async () => {
    const line = 'x'.repeat(1000) + '\n';
    expect(await offset(line.repeat(200), 3)).toBe(197 * 1001);
  });
});

describe('readContainerLog', () => {
  it('reads a last line without its newline when not following', async () => {
    const p = join(dir, 'log');
    await writeFile(p, '2024-01-01T00:00:00Z stdout F a\n2024-01-01T00:00:01Z stdout F b');
    expect(await collect(p, ALL)).toBe('a\nb\n');
  });

  it('joins a line of many reads once, not once per read (a runtime with no line cap)', async () => {
    const p = join(dir, 'log');
    const content = 'y'.repeat(8 * 1024 * 1024);
    await writeFile(p, `2024-01-01T00:00:00Z stdout F ${content}\n2024-01-01T00:00:01Z stdout F after`);
    let text = '';
    const copied = await copiedBytes(async () => (text = await collect(p, ALL)));
    expect(text).toBe(`${content}\nafter\n`);
    // The file is copied out of the read buffer once and joined once; the test's own join of the output once more.
    expect(copied).toBeLessThanOrEqual(3 * (content.length + 64));
  });

  it('counts limitBytes in bytes, not characters', async () => {
    const p = join(dir, 'log');
    await writeFile(p, '2024-01-01T00:00:00Z stdout F héllo\n');
    expect(await collect(p, { ...ALL, limitBytes: 3 })).toBe('hé');
    const parts: Buffer[] = [];
    for await (const c of readContainerLog(p, { ...ALL, limitBytes: 2 })) parts.push(c);
    expect(Buffer.concat(parts)).toEqual(Buffer.from('hé', 'utf8').subarray(0, 2));
  });
});

/** A follow over `path` whose container runs until `stop()`; `text()` is what arrived so far. */
function following(path: string, opts: LogOptions = ALL, pollMs = 5) {
  let running = true;
  // The follower asks whether the container runs once per poll that found nothing new to read.
  let asked = 0;
  const waiter = createChangeWaiter();
  const parts: Buffer[] = [];
  const abort = new AbortController();
  const done = (async () => {
    const isRunning = () => {
      asked += 1;
      waiter.changed();
      return running;
    };
    for await (const c of readContainerLog(path, opts, { running: isRunning, pollMs, maxFollowMs: 60_000, signal: abort.signal })) parts.push(c);
  })();
  return {
    text: () => Buffer.concat(parts).toString('utf8'),
    stop: () => { running = false; },
    abort: () => abort.abort(),
    /** Resolves once `n` more polls have found nothing new (the first may have begun before the call). */
    polls: (n: number) => {
      const until = asked + n;
      return waiter.until(() => asked >= until, () => `${n} polls of the log file`);
    },
    done,
  };
}

const line = (n: number | string) => `2024-01-01T00:00:00.000000001Z stdout F line ${n}\n`;
const lines = (...ns: Array<number | string>) => ns.map((n) => `line ${n}\n`).join('');

/** Go's container log manager: the file renamed aside, then the runtime reopens at the same path. */
async function rotate(path: string, suffix: string, firstLine?: string): Promise<void> {
  await rename(path, `${path}.${suffix}`);
  await writeFile(path, firstLine ?? '');
}

describe('readContainerLog in a log directory a pod planted links in', () => {
  it('refuses a log that is a link, naming it, and never yields what it points at', async () => {
    const p = plantedLogDirectory();
    await symlink(p.secret, p.log);
    await expect(collect(p.log, ALL)).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE', message: expect.stringContaining(`"${p.log}" is not a regular file`) as string });
  });

  it('refuses a log whose container directory is a link', async () => {
    const p = plantedLogDirectory();
    const elsewhere = await mkdtemp(join(tmpdir(), 'kts-elsewhere-'));
    await writeFile(join(elsewhere, '0.log'), '2024-01-01T00:00:00Z stdout F not the pod\'s\n');
    p.replaceContainerDirectoryWithLinkTo(elsewhere);
    await expect(collect(p.log, ALL)).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE', message: expect.stringContaining('is not a directory') as string });
  });

  it('following, never switches to a link that replaced the log', async () => {
    const p = plantedLogDirectory();
    await writeFile(p.log, '2024-01-01T00:00:00Z stdout F mine\n');
    await writeFile(p.secret, '2024-01-01T00:00:01Z stdout F root-only host file: do not copy\n');
    let polls = 0;
    const parts: Buffer[] = [];
    // The container stops after a few polls: each poll looked at the path, which holds the link by then.
    const running = () => ++polls < 5;
    const reader = readContainerLog(p.log, ALL, { running, pollMs: 5, maxFollowMs: 60_000 });
    const first = await reader.next();
    parts.push(first.value as Buffer);
    await rename(p.log, `${p.log}.20240101-000000`);
    await symlink(p.secret, p.log);
    for await (const c of reader) parts.push(c);
    expect(Buffer.concat(parts).toString()).toBe('mine\n');
    expect(polls).toBe(5);
  });
});

describe('readContainerLog following a rotation', () => {
  it('finishes the old file, then reads the new one from its top', async () => {
    const p = join(dir, '0.log');
    await writeFile(p, line(1) + line(2));
    const f = following(p);
    await expect.poll(f.text).toBe(lines(1, 2));
    await appendFile(p, line(3));
    await rename(p, `${p}.1`);
    await appendFile(`${p}.1`, line(4)); // the runtime writes to the old file until it reopens
    await writeFile(p, line(5));
    await appendFile(p, line(6));
    await expect.poll(f.text).toBe(lines(1, 2, 3, 4, 5, 6));
    f.stop();
    await f.done;
    expect(f.text()).toBe(lines(1, 2, 3, 4, 5, 6));
  });

  it('keeps following across several rotations, no line lost or read twice', async () => {
    const p = join(dir, '0.log');
    await writeFile(p, line(0));
    const f = following(p);
    const want = [0];
    for (let r = 1; r <= 5; r++) {
      await appendFile(p, line(r * 10));
      await rotate(p, String(r), line(r * 10 + 1));
      want.push(r * 10, r * 10 + 1);
      await expect.poll(f.text).toBe(lines(...want));
    }
    f.stop();
    await f.done;
    expect(f.text()).toBe(lines(...want));
  });

  it('reads what the runtime still wrote to the old file just after the new one appeared', async () => {
    // containerd creates the new file, then swaps its writer: a last line may land in the old file
    // after the follower first saw the new one and read the old one to its end.
    const p = join(dir, '0.log');
    await writeFile(p, line(1));
    const f = following(p, ALL, 300);
    await expect.poll(f.text).toBe(lines(1));
    await rename(p, `${p}.1`);
    await writeFile(p, line(3));
    const opened = async () => {
      for (const fd of await readdir('/proc/self/fd')) if ((await readlink(`/proc/self/fd/${fd}`).catch(() => '')) === p) return true;
      return false;
    };
    await expect.poll(opened, { interval: 1, timeout: 5_000 }).toBe(true);
    await appendFile(`${p}.1`, line(2));
    await expect.poll(f.text, { timeout: 5_000 }).toBe(lines(1, 2, 3));
    f.stop();
    await f.done;
    expect(f.text()).toBe(lines(1, 2, 3));
  });

  it('skips no file that was at the path only while it was catching up with a fast writer, however far behind', async () => {
    const p = join(dir, '0.log');
    const backlog = Array.from({ length: 5000 }, (_, i) => i + 1);
    await writeFile(p, backlog.map(line).join(''));
    // The reader's clock is fake: a poll period passes between two rotations only when the test says.
    vi.useFakeTimers({ toFake: ['Date'] });
    const reader = readContainerLog(p, ALL, { running: () => true, pollMs: 5, maxFollowMs: 60_000 });
    const got: string[] = [];
    const take = async (n: number) => {
      for (let i = 0; i < n; i++) got.push(((await reader.next()).value as Buffer).toString());
    };
    // A poll period: time for the follower to look at the path once between rotations.
    const pause = () => vi.setSystemTime(Date.now() + 5);
    await take(1);
    await rotate(p, '1', line('A'));
    pause();
    await take(1500); // past a read of the backlog: the path is looked at, A's file seen
    await rotate(p, '2', line('B'));
    pause();
    await take(1500); // still behind: B's file seen too
    await rotate(p, '3', line('C'));
    await take(backlog.length - 3001 + 3);
    await reader.return(undefined);
    expect(got.join('')).toBe(lines(...backlog, 'A', 'B', 'C'));
  });

  it('completes a line half-written when the rotation came', async () => {
    const p = join(dir, '0.log');
    const whole = line('half');
    await writeFile(p, line(1) + whole.slice(0, 20));
    const f = following(p);
    await expect.poll(f.text).toBe(lines(1));
    await f.polls(3); // several polls see the half line: it is held back, not sent
    expect(f.text()).toBe(lines(1));
    await appendFile(p, whole.slice(20));
    await rotate(p, '1', line(2));
    await expect.poll(f.text).toBe(lines(1, 'half', 2));
    f.stop();
    await f.done;
    expect(f.text()).toBe(lines(1, 'half', 2));
  });

  it('sends a line the old file was left without a newline once the rotation is seen', async () => {
    const p = join(dir, '0.log');
    await writeFile(p, line(1) + line('cut').slice(0, -1));
    const f = following(p);
    await expect.poll(f.text).toBe(lines(1));
    await rotate(p, '1', line(2));
    await expect.poll(f.text).toBe(lines(1, 'cut', 2));
    f.stop();
    await f.done;
  });

  it('stays on the old file while the path is missing, then moves to the new one', async () => {
    const p = join(dir, '0.log');
    await writeFile(p, line(1));
    const f = following(p);
    await expect.poll(f.text).toBe(lines(1));
    await rename(p, `${p}.1`);
    // The follower polls: a whole poll begun after the rename sees the path missing before the old file grows.
    await f.polls(2);
    await appendFile(`${p}.1`, line(2));
    await expect.poll(f.text).toBe(lines(1, 2));
    await writeFile(p, line(3));
    await expect.poll(f.text).toBe(lines(1, 2, 3));
    f.stop();
    await f.done;
  });

  it('ends once the container stops, after the lines written before it stopped', async () => {
    const p = join(dir, '0.log');
    await writeFile(p, line(1));
    const f = following(p);
    await expect.poll(f.text).toBe(lines(1));
    await appendFile(p, line(2));
    f.stop();
    await f.done;
    expect(f.text()).toBe(lines(1, 2));
  });

  it('ends when the container stops while its file is renamed away and not yet back', async () => {
    const p = join(dir, '0.log');
    await writeFile(p, line(1));
    const f = following(p);
    await expect.poll(f.text).toBe(lines(1));
    await rename(p, `${p}.1`);
    await appendFile(`${p}.1`, line(2));
    f.stop();
    await f.done;
    expect(f.text()).toBe(lines(1, 2));
  });

  it('keeps no file open but the current one after many rotations', async () => {
    const p = join(dir, '0.log');
    await writeFile(p, line(0));
    const openFds = async () => (await readdir('/proc/self/fd')).length;
    const f = following(p);
    await expect.poll(f.text).toBe(lines(0));
    const before = await openFds();
    const want = [0];
    for (let r = 1; r <= 20; r++) {
      await rotate(p, String(r), line(r));
      want.push(r);
      await expect.poll(f.text).toBe(lines(...want));
    }
    // Polled: the process's fd table also holds what the worker opens and closes around the test; a leak stays.
    await expect.poll(openFds).toBeLessThanOrEqual(before);
    f.abort();
    await f.done;
  });

  it('holds a bounded amount of memory while following a large log', async () => {
    const p = join(dir, '0.log');
    const block = Array.from({ length: 1000 }, (_, i) => line(i)).join('').repeat(20); // ~1 MB
    const rendered = Array.from({ length: 1000 }, (_, i) => `line ${i}\n`).join('').length * 20;
    await writeFile(p, '');
    let running = true;
    let received = 0;
    // A client that counts what arrives and keeps none of it.
    const done = (async () => {
      for await (const c of readContainerLog(p, ALL, { running: () => running, pollMs: 5, maxFollowMs: 60_000 })) received += c.length;
    })();
    // What stays reachable, after a full collection: the garbage of a moment (which the collector
    // decides when to free) is not what a follower holds.
    const retained = () => { collectGarbage(); const m = process.memoryUsage(); return m.heapUsed + m.arrayBuffers; };
    const base = retained();
    let most = 0;
    const blocks = 64; // 64 MB through the follower
    const fh = await open(p, 'a');
    try {
      for (let b = 1; b <= blocks; b++) {
        await fh.write(block);
        await vi.waitFor(() => expect(received).toBe(rendered * b), { timeout: 10_000, interval: 2 });
        if (b % 8 === 0) most = Math.max(most, retained() - base);
      }
    } finally {
      await fh.close();
    }
    running = false;
    await done;
    expect(received).toBe(rendered * blocks);
    // A follower that kept what it read would hold 8 MB at the first look and 64 MB at the last.
    expect(most).toBeLessThan(4 * 1024 * 1024);
    // 64 MB rendered and collected: generous for a loaded 2-core machine (over 60 s at load 20).
  }, 180_000);
});
