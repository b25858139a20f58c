/**
 * A journal's lines read into records, one pass at a time: line 1 of each segment is its header (a
 * kubelet-ts journal of a version this reader knows, or an error naming the file), every other line
 * a record put back whole by the expanders (what the writer wrote as a reference), or a line skipped
 * with the reason. One reader per pass: the expanders hold what the records since the last
 * checkpoint wrote whole.
 */
import { KubeletError } from '../../domain/errors.js';
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

/** One pass's reading of lines into records: the header, the skipped lines, the expanders' state. */
export class RecordReader {
  header: JournalHeader | null = null;
  readonly skipped: SkippedLine[] = [];
  private readonly snapshots = new SnapshotExpander();
  private readonly pods = new PodExpander();
  private readonly outputs = new OutputsExpander();
  private readonly events = new EventExpander();

  constructor(private readonly lastFile: string) {}

  /** The record on line `line` of `file`, whole; undefined for the header and a skipped line. */
  read(file: string, text: string, line: number, last: boolean): JournalRecord | undefined {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      if (line === 1) throw new KubeletError('KLT_ERR_JOURNAL_FORMAT', `${file} is not a kubelet-ts event log: ${whyNotAHeader(text, last)}`);
      const torn = last && file === this.lastFile;
      this.skipped.push({ file, line, reason: torn ? 'torn last line' : 'not JSON' });
      return undefined;
    }
    if (line === 1) {
      if (!isJournalHeader(value)) {
        throw new KubeletError('KLT_ERR_JOURNAL_FORMAT', `${file} is not a kubelet-ts event log (no header on line 1)`);
      }
      if (!READABLE_VERSIONS.includes(value.version)) {
        throw new KubeletError('KLT_ERR_JOURNAL_FORMAT',
          `${file} is format version ${value.version}; this kubelet-ts reads versions ${READABLE_VERSIONS.join(', ')}`);
      }
      this.header ??= value;
      return undefined;
    }
    if (!isRecord(value)) {
      this.skipped.push({ file, line, reason: 'not a journal record' });
      return undefined;
    }
    try {
      return this.snapshots.expand(this.events.expand(this.outputs.expand(this.pods.expand(value))));
    } catch (err) {
      this.skipped.push({ file, line, reason: `a record that cannot be read whole: ${(err as Error).message} (its segment was rotated away?)` });
      return undefined;
    }
  }
}

/** Why line 1, which is not JSON, is no header: said so that the file's owner knows what they have. */
function whyNotAHeader(line: string, onlyLine: boolean): string {
  if (line.startsWith('\uFEFF')) return 'it starts with a byte-order mark (kubelet-ts writes none)';
  if (line.startsWith('{"format":"kubelet-ts.journal"') && onlyLine) return 'its header line is cut short (the run stopped while writing it?)';
  if (/[\u0000-\u0008\u000E-\u001F\uFFFD]/.test(line.slice(0, 256))) return 'it is binary, not JSON Lines';
  return 'line 1 is not JSON';
}

function isRecord(v: unknown): v is JournalRecord {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Partial<JournalRecord>;
  return typeof r.seq === 'number' && typeof r.actor === 'string' && typeof r.name === 'string' &&
    (r.kind === 'input' || r.kind === 'derived') && typeof r.t === 'number';
}
