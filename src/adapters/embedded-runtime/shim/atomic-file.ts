/**
 * Crash-safe small files: write to a temporary sibling, fsync, then rename over the target, so a reader
 * sees either the old content or the new, never a torn mix. Readers still treat unparsable content
 * as "torn" rather than trusting it (a file written by something else, a full disk, an old version).
 *
 * This module imports nothing from the project: the detached shim uses it too.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';

/** Temporary files carry this marker so a store can sweep the ones a crash left behind. */
export const TEMP_MARKER = '.tmp-';

function tempPathFor(path: string): string {
  return `${path}${TEMP_MARKER}${process.pid}-${randomBytes(4).toString('hex')}`;
}

export async function writeFileAtomic(path: string, data: string | Buffer): Promise<void> {
  const tmp = tempPathFor(path);
  const handle = await open(tmp, 'w', 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await handle.close();
  try {
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

export function writeFileAtomicSync(path: string, data: string | Buffer): void {
  const tmp = tempPathFor(path);
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (err) {
    try { unlinkSync(tmp); } catch { /* already gone */ }
    throw err;
  }
}

export type JsonRead<T> =
  | { kind: 'ok'; value: T }
  | { kind: 'absent' }
  | { kind: 'torn'; error: string };

function parseJson<T>(text: string): JsonRead<T> {
  try {
    return { kind: 'ok', value: JSON.parse(text) as T };
  } catch (err) {
    return { kind: 'torn', error: err instanceof Error ? err.message : String(err) };
  }
}

function isNotFound(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

export async function readJsonFile<T>(path: string): Promise<JsonRead<T>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (isNotFound(err)) return { kind: 'absent' };
    throw err;
  }
  return parseJson<T>(text);
}

export function readJsonFileSync<T>(path: string): JsonRead<T> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (isNotFound(err)) return { kind: 'absent' };
    throw err;
  }
  return parseJson<T>(text);
}
