/**
 * Reads a journal back: the active file and its rotated segments (`PATH.<n>`, oldest first), the
 * header, every record in order. A line that is not JSON (a torn last line after a crash, or damage)
 * is reported and skipped; reading goes on. A file that is not a kubelet-ts journal, or of another
 * format version, is an error (KLT_ERR_JOURNAL_FORMAT) naming the file. What the writer wrote as a
 * reference is put back whole (pod-refs.ts, event-refs.ts, outputs-refs.ts, and older logs'
 * snapshot-refs.ts): every record read is as the kubelet made it. The files are read in chunks and
 * each record handed on as it is read (`openJournal`), so a caller that keeps only what it needs
 * reads a log of any size in bounded memory; `readJournal` keeps every record.
 */
import { closeSync, existsSync, openSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { KubeletError } from '../../domain/errors.js';
import { kindOf } from '../bounded-input/read-regular-file.js';
import type { JournalHeader, JournalRecord } from '../../domain/journal/record.js';
import { forEachLine } from './read-lines.js';
import { RecordReader, type SkippedLine } from './record-reader.js';

export type { SkippedLine };

/** What a pass over a journal found besides its records. */
export interface JournalPass {
  header: JournalHeader;
  skipped: SkippedLine[];
  files: string[];
}

export interface JournalContents extends JournalPass {
  records: JournalRecord[];
}

export function journalSegments(path: string): string[] {
  const dir = dirname(path);
  const base = basename(path);
  const rotated = existsSync(dir)
    ? readdirSync(dir)
        .map((name) => ({ name, n: rotatedIndex(name, base) }))
        .filter((f): f is { name: string; n: number } => f.n !== null)
        .sort((a, b) => a.n - b.n)
        .map((f) => join(dir, f.name))
    : [];
  return [...rotated, path];
}

function rotatedIndex(name: string, base: string): number | null {
  if (!name.startsWith(base + '.')) return null;
  const rest = name.slice(base.length + 1);
  return /^\d+$/.test(rest) ? Number(rest) : null;
}

/** A journal opened for reading in passes: `openJournal`. */
export interface OpenJournal {
  /** The segments, oldest first (`latest.jsonl` resolved to the run's file). */
  readonly files: readonly string[];
  /**
   * One pass over every record, in order, each handed to `onRecord` as soon as it is read: memory
   * holds a chunk of the file and what the expanders keep since the last checkpoint, never the log.
   * A later pass reads the very bytes the first one did, though the log may have grown or rotated.
   */
  forEachRecord(onRecord: (record: JournalRecord) => void): JournalPass;
  close(): void;
}

export interface OpenJournalOptions {
  /** How much of a file is read at a time (READ_CHUNK_BYTES). */
  chunkBytes?: number;
}

/** Every record of the journal at `path`, held in memory. */
export function readJournal(path: string): JournalContents {
  const journal = openJournal(path);
  try {
    const records: JournalRecord[] = [];
    return { ...journal.forEachRecord((record) => records.push(record)), records };
  } finally {
    journal.close();
  }
}

export function openJournal(path: string, opts: OpenJournalOptions = {}): OpenJournal {
  if (!existsSync(path)) throw new KubeletError('KLT_ERR_JOURNAL_IO', `event log ${path} does not exist`);
  // `latest.jsonl` is a link to the run's file; its rotated segments sit beside the real name.
  const files = journalSegments(realpathSync(path));
  // Opened as the first pass reaches them, and held: a later pass reads the same files, renamed or not.
  const opened: { fd: number; bytes: number }[] = [];
  const forEachRecord = (onRecord: (record: JournalRecord) => void): JournalPass => {
    const pass = new RecordReader(files.at(-1)!);
    files.forEach((file, i) => {
      const segment = opened[i] ?? openSegment(file);
      opened[i] = segment;
      segment.bytes = forEachLine(segment.fd, (text, line, last) => {
        const record = pass.read(file, text, line, last);
        if (record !== undefined) onRecord(record);
      }, { ...opts, limit: segment.bytes });
    });
    if (!pass.header) throw new KubeletError('KLT_ERR_JOURNAL_FORMAT', `${path} is empty: not a kubelet-ts event log`);
    return { header: pass.header, skipped: pass.skipped, files };
  };
  const close = () => {
    for (const { fd } of opened.splice(0)) closeSync(fd);
  };
  return { files, forEachRecord, close };
}

function openSegment(file: string): { fd: number; bytes: number } {
  // A FIFO would block the read for ever, a device never end it: only regular files.
  const info = statSync(file);
  if (!info.isFile()) throw new KubeletError('KLT_ERR_JOURNAL_IO', `event log ${file} is ${kindOf(info)}, not a regular file`);
  return { fd: openSync(file, 'r'), bytes: Infinity };
}
