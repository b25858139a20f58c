import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readContainerLog, tailStartOffset } from '../../../src/adapters/fs/container-log-reader.js';
import type { LogOptions } from '../../../src/domain/http/log-options.js';

let dir: string;
beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'klt-reader-')); });
afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

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

  it('counts limitBytes in bytes, not characters', async () => {
    const p = join(dir, 'log');
    await writeFile(p, '2024-01-01T00:00:00Z stdout F héllo\n');
    expect(await collect(p, { ...ALL, limitBytes: 3 })).toBe('hé');
    const parts: Buffer[] = [];
    for await (const c of readContainerLog(p, { ...ALL, limitBytes: 2 })) parts.push(c);
    expect(Buffer.concat(parts)).toEqual(Buffer.from('hé', 'utf8').subarray(0, 2));
  });
});
