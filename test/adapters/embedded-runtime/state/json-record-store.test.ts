import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DELETED_IDS_KEPT, JsonRecordStore } from '../../../../src/adapters/embedded-runtime/state/json-record-store.js';

interface Rec { id: string; n: number }

let dir: string;
beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'klt-store-')); });
afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

describe('JsonRecordStore', () => {
  it('loads nothing from an absent directory, and creates it', async () => {
    const store = new JsonRecordStore<Rec>(join(dir, 'absent'));
    expect(await store.loadAll()).toEqual({ records: [], torn: [] });
    expect(await readdir(join(dir, 'absent'))).toEqual([]);
  });

  it('round-trips records, replaces on put and forgets on delete (twice is fine)', async () => {
    const store = new JsonRecordStore<Rec>(dir);
    await store.put({ id: 'a', n: 1 });
    await store.put({ id: 'b', n: 2 });
    await store.put({ id: 'a', n: 3 });
    expect((await store.loadAll()).records).toEqual([{ id: 'a', n: 3 }, { id: 'b', n: 2 }]);
    await store.delete('a');
    await store.delete('a');
    expect((await new JsonRecordStore<Rec>(dir).loadAll()).records).toEqual([{ id: 'b', n: 2 }]);
  });

  it('leaves no temporary file behind after a write', async () => {
    const store = new JsonRecordStore<Rec>(dir);
    await store.put({ id: 'a', n: 1 });
    expect(await readdir(dir)).toEqual(['a.json']);
    expect(JSON.parse(await readFile(join(dir, 'a.json'), 'utf8'))).toEqual({ id: 'a', n: 1 });
  });

  it('reports torn and id-less files without loading them, and sweeps temporaries a crash left', async () => {
    const store = new JsonRecordStore<Rec>(dir);
    await store.put({ id: 'good', n: 1 });
    await writeFile(join(dir, 'torn.json'), '{"id":"torn","n":');
    await writeFile(join(dir, 'noid.json'), '{"n":1}');
    await writeFile(join(dir, 'good.json.tmp-123-abcd'), '{"id":"good","n":99}');
    await writeFile(join(dir, 'notes.txt'), 'ignored');
    const loaded = await store.loadAll();
    expect(loaded.records).toEqual([{ id: 'good', n: 1 }]);
    expect(loaded.torn.map((t) => t.file).sort()).toEqual([join(dir, 'noid.json'), join(dir, 'torn.json')]);
    expect((await readdir(dir)).sort()).toEqual(['good.json', 'noid.json', 'notes.txt', 'torn.json']);
  });

  it.each(['../escape', '', '.hidden', 'a/b'])('refuses the unsafe id %j', async (id) => {
    await expect(new JsonRecordStore<Rec>(dir).put({ id, n: 0 })).rejects.toThrow(RangeError);
  });
});

describe('JsonRecordStore ordering', () => {
  it('keeps a deleted record deleted when a save races with the delete', async () => {
    const store = new JsonRecordStore<Rec>(dir);
    await store.put({ id: 'x', n: 1 });
    const racing = store.put({ id: 'x', n: 2 });
    const removing = store.delete('x');
    const late = store.put({ id: 'x', n: 3 });
    await Promise.all([racing, removing, late]);
    expect(await readdir(dir)).toEqual([]);
  });

  it('remembers the last DELETED_IDS_KEPT deleted ids, not every one', async () => {
    const store = new JsonRecordStore<Rec>(dir);
    for (let i = 0; i < DELETED_IDS_KEPT + 10; i++) await store.delete(`r${i}`);
    expect(store.deletedIdsKept).toBe(DELETED_IDS_KEPT);
    // The newest are still refused; the oldest ten are forgotten.
    await store.put({ id: `r${DELETED_IDS_KEPT + 9}`, n: 1 });
    await store.put({ id: 'r10', n: 1 });
    await store.put({ id: 'r9', n: 1 });
    expect(await readdir(dir)).toEqual(['r9.json']);
  });

  it('writes what the record held when put was called, in call order', async () => {
    const store = new JsonRecordStore<Rec>(dir);
    const rec = { id: 'y', n: 1 };
    const first = store.put(rec);
    rec.n = 2;
    const second = store.put(rec);
    rec.n = 3;
    await Promise.all([first, second]);
    expect((await store.loadAll()).records).toEqual([{ id: 'y', n: 2 }]);
  });
});
