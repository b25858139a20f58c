/**
 * One JSON file per record in a directory, each written atomically (atomic-file.ts). Loading skips
 * files that cannot be parsed ("torn": they are reported, not trusted) and sweeps temporary files a
 * crash left behind.
 *
 * Writes of one record are queued, and a deleted id stays deleted: a status refresh that saves a
 * record while RemoveContainer deletes it must not bring the file back (ids are never reused).
 * "Stays" is bounded: the last DELETED_IDS_KEPT deleted ids are remembered, enough for any save
 * that was under way when its record went; keeping them all would grow with every container and
 * sandbox the node ever removed.
 */
import { mkdir, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { readJsonFile, TEMP_MARKER, writeFileAtomic } from '../shim/atomic-file.js';
import { KeyedMutex } from './keyed-mutex.js';

export interface LoadResult<T> {
  records: T[];
  torn: { file: string; error: string }[];
}

const SUFFIX = '.json';
/** How many deleted ids are remembered (the oldest forgotten first). */
export const DELETED_IDS_KEPT = 4096;

export class JsonRecordStore<T extends { id: string }> {
  private readonly queue = new KeyedMutex();
  private readonly deleted = new Set<string>();

  constructor(readonly dir: string) {}

  /** How many deleted ids are remembered now. */
  get deletedIdsKept(): number {
    return this.deleted.size;
  }

  fileFor(id: string): string {
    if (!/^[A-Za-z0-9_.-]+$/.test(id) || id.startsWith('.')) throw new RangeError(`unsafe record id ${JSON.stringify(id)}`);
    return join(this.dir, `${id}${SUFFIX}`);
  }

  async loadAll(): Promise<LoadResult<T>> {
    await mkdir(this.dir, { recursive: true });
    const result: LoadResult<T> = { records: [], torn: [] };
    for (const name of (await readdir(this.dir)).sort()) {
      const file = join(this.dir, name);
      if (name.includes(TEMP_MARKER)) {
        await unlink(file).catch(() => undefined);
        continue;
      }
      if (!name.endsWith(SUFFIX)) continue;
      const read = await readJsonFile<T>(file);
      if (read.kind === 'ok' && isRecordLike(read.value)) result.records.push(read.value);
      else if (read.kind === 'ok') result.torn.push({ file, error: 'not a record (no string id)' });
      else if (read.kind === 'torn') result.torn.push({ file, error: read.error });
    }
    return result;
  }

  async put(record: T): Promise<void> {
    const file = this.fileFor(record.id);
    const content = JSON.stringify(record); // now: the caller may change the object while we wait
    await this.queue.run(record.id, async () => {
      if (this.deleted.has(record.id)) return;
      await mkdir(this.dir, { recursive: true });
      await writeFileAtomic(file, content);
    });
  }

  async delete(id: string): Promise<void> {
    const file = this.fileFor(id);
    await this.queue.run(id, async () => {
      this.deleted.add(id);
      // A Set iterates in insertion order: the first is the oldest.
      if (this.deleted.size > DELETED_IDS_KEPT) this.deleted.delete(this.deleted.values().next().value!);
      await unlink(file).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    });
  }
}

function isRecordLike(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string';
}
