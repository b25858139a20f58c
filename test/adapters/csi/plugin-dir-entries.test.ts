import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookAtEntry, readEntryNames } from '../../../src/adapters/csi/plugin-dir-entries.js';

let base = '';
const server: Server = createServer();

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'plugin-entries-'));
  mkdirSync(join(base, 'dir'));
  writeFileSync(join(base, 'file'), '');
  await new Promise<void>((resolve) => server.listen(join(base, 'a.sock'), resolve));
  symlinkSync(join(base, 'dir'), join(base, 'link-to-dir'));
  symlinkSync(join(base, 'a.sock'), join(base, 'link-to-sock'));
  symlinkSync(join(base, 'file'), join(base, 'link-to-file'));
  symlinkSync(join(base, 'nowhere'), join(base, 'dangling'));
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(base, { recursive: true, force: true });
});

describe('lookAtEntry', () => {
  it.each([
    ['dir', 'directory'],
    ['file', 'other'],
    ['a.sock', 'socket'],
    ['link-to-dir', 'linkedDirectory'],
    ['link-to-sock', 'socket'],
    ['link-to-file', 'other'],
    ['dangling', 'other'],
    ['missing', 'gone'],
  ])('takes %s for a %s, never following a link into a directory', async (name, kind) => {
    expect((await lookAtEntry(join(base, name))).kind).toBe(kind);
  });

  it('gives a link to a socket the identity of the socket it points to', async () => {
    expect(await lookAtEntry(join(base, 'link-to-sock'))).toEqual(await lookAtEntry(join(base, 'a.sock')));
  });
});

describe('readEntryNames', () => {
  it('gives the names sorted, cut after the bound', async () => {
    expect(await readEntryNames(base, 100)).toEqual({ names: ['a.sock', 'dangling', 'dir', 'file', 'link-to-dir', 'link-to-file', 'link-to-sock'], cut: false });
    const cut = await readEntryNames(base, 3);
    expect(cut?.names).toHaveLength(3);
    expect(cut?.cut).toBe(true);
  });

  it('gives null for a directory that cannot be read', async () => {
    expect(await readEntryNames(join(base, 'missing'), 10)).toBeNull();
  });
});
