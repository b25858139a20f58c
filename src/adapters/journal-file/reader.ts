/**
 * Reads a journal back: the active file and its rotated segments (`PATH.<n>`, oldest first), the
 * header, every record in order. A line that is not JSON (a torn last line after a crash, or damage)
 * is reported and skipped; reading goes on. A file that is not a kubelet-ts journal, or of another
 * format version, is an error (KLT_ERR_JOURNAL_FORMAT) naming the file. What the writer wrote as a
 * reference is put back whole (pod-refs.ts, event-refs.ts, outputs-refs.ts, and older logs'
 * snapshot-refs.ts): every
 * record read is as the kubelet made it.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { KubeletError } from '../../domain/errors.js';
import { kindOf } from '../bounded-input/read-regular-file.js';
import {
  isJournalHeader,
  JOURNAL_VERSION,
  type JournalHeader,
  type JournalRecord,
} from '../../domain/journal/record.js';
import { EventExpander } from '../../domain/journal/event-refs.js';
import { OutputsExpander } from '../../domain/journal/outputs-refs.js';
import { PodExpander } from '../../domain/journal/pod-refs.js';
import { SnapshotExpander } from '../../domain/journal/snapshot-refs.js';

/**
 * Version 1 has no references; 2 writes a pod source's unchanged pods as references; 3 also any pod
 * written before (pod-refs.ts); 4 (today's) also a phase output an earlier spawn carried (outputs-refs.ts) and an event's delivery
 * (event-refs.ts).
 */
const READABLE_VERSIONS: readonly number[] = [1, 2, 3, JOURNAL_VERSION];

export interface SkippedLine {
  file: string;
  line: number;
  reason: string;
}

export interface JournalContents {
  header: JournalHeader;
  records: JournalRecord[];
  skipped: SkippedLine[];
  files: string[];
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

export function readJournal(path: string): JournalContents {
  if (!existsSync(path)) throw new KubeletError('KLT_ERR_JOURNAL_IO', `event log ${path} does not exist`);
  // `latest.jsonl` is a link to the run's file; its rotated segments sit beside the real name.
  const files = journalSegments(realpathSync(path));
  const skipped: SkippedLine[] = [];
  const records: JournalRecord[] = [];
  let header: JournalHeader | null = null;
  const snapshots = new SnapshotExpander();
  const pods = new PodExpander();
  const outputs = new OutputsExpander();
  const events = new EventExpander();
  for (const file of files) {
    // A FIFO would block the read for ever, a device never end it: only regular files.
    const info = statSync(file);
    if (!info.isFile()) throw new KubeletError('KLT_ERR_JOURNAL_IO', `event log ${file} is ${kindOf(info)}, not a regular file`);
    const lines = readFileSync(file, 'utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    lines.forEach((text, i) => {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        if (i === 0) throw new KubeletError('KLT_ERR_JOURNAL_FORMAT', `${file} is not a kubelet-ts event log: ${whyNotAHeader(text, lines.length)}`);
        const torn = i === lines.length - 1 && file === files.at(-1);
        skipped.push({ file, line: i + 1, reason: torn ? 'torn last line' : 'not JSON' });
        return;
      }
      if (i === 0) {
        if (!isJournalHeader(value)) {
          throw new KubeletError('KLT_ERR_JOURNAL_FORMAT', `${file} is not a kubelet-ts event log (no header on line 1)`);
        }
        if (!READABLE_VERSIONS.includes(value.version)) {
          throw new KubeletError('KLT_ERR_JOURNAL_FORMAT',
            `${file} is format version ${value.version}; this kubelet-ts reads versions ${READABLE_VERSIONS.join(', ')}`);
        }
        header ??= value;
        return;
      }
      if (!isRecord(value)) {
        skipped.push({ file, line: i + 1, reason: 'not a journal record' });
        return;
      }
      try {
        records.push(snapshots.expand(events.expand(outputs.expand(pods.expand(value)))));
      } catch (err) {
        skipped.push({ file, line: i + 1, reason: `a record that cannot be read whole: ${(err as Error).message} (its segment was rotated away?)` });
      }
    });
  }
  if (!header) throw new KubeletError('KLT_ERR_JOURNAL_FORMAT', `${path} is empty: not a kubelet-ts event log`);
  return { header, records, skipped, files };
}

/** Why line 1, which is not JSON, is no header: said so that the file's owner knows what they have. */
function whyNotAHeader(line: string, lineCount: number): string {
  if (line.startsWith('\uFEFF')) return 'it starts with a byte-order mark (kubelet-ts writes none)';
  if (line.startsWith('{"format":"kubelet-ts.journal"') && lineCount === 1) return 'its header line is cut short (the run stopped while writing it?)';
  if (/[\u0000-\u0008\u000E-\u001F\uFFFD]/.test(line.slice(0, 256))) return 'it is binary, not JSON Lines';
  return 'line 1 is not JSON';
}

function isRecord(v: unknown): v is JournalRecord {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Partial<JournalRecord>;
  return typeof r.seq === 'number' && typeof r.actor === 'string' && typeof r.name === 'string' &&
    (r.kind === 'input' || r.kind === 'derived') && typeof r.t === 'number';
}
