/**
 * One line of a CRI container log file, as containerd and CRI-O write it:
 * `<RFC3339Nano timestamp> <stdout|stderr> <tag> <content>` where the tag is `F` (full line) or `P`
 * (a partial line, continued on the next), possibly followed by `:`-separated extra tags.
 * Parsing and re-rendering follow Go's parseCRILog / ReadLogs: a full line keeps its newline, a
 * partial one does not; with `timestamps` the line's timestamp and a space come first.
 */

export type LogStream = 'stdout' | 'stderr';

export interface CriLogRecord {
  /** The timestamp text exactly as written (RFC 3339 with nanoseconds). */
  timestamp: string;
  /** The timestamp in epoch ms (sub-millisecond precision dropped). */
  timeMs: number;
  stream: LogStream;
  partial: boolean;
  /** The content, without the file's line terminator. */
  content: string;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** Epoch ms of an RFC 3339 timestamp (nanoseconds allowed), or NaN when malformed. */
export function parseRfc3339Ms(text: string): number {
  if (!RFC3339.test(text)) return NaN;
  // Date.parse understands milliseconds only: cut the fraction to three digits.
  return Date.parse(text.replace(/\.(\d{1,3})\d*/, '.$1'));
}

/** One line (with or without its trailing newline) to a record; null when it is not in CRI format. */
export function parseCriLogLine(line: string): CriLogRecord | null {
  const text = line.endsWith('\n') ? line.slice(0, -1) : line;
  const s1 = text.indexOf(' ');
  if (s1 < 0) return null;
  const timestamp = text.slice(0, s1);
  const timeMs = parseRfc3339Ms(timestamp);
  if (Number.isNaN(timeMs)) return null;
  const s2 = text.indexOf(' ', s1 + 1);
  if (s2 < 0) return null;
  const stream = text.slice(s1 + 1, s2);
  if (stream !== 'stdout' && stream !== 'stderr') return null;
  const s3 = text.indexOf(' ', s2 + 1);
  const tags = s3 < 0 ? text.slice(s2 + 1) : text.slice(s2 + 1, s3);
  const tag = tags.split(':')[0];
  if (tag !== 'F' && tag !== 'P') return null;
  return { timestamp, timeMs, stream, partial: tag === 'P', content: s3 < 0 ? '' : text.slice(s3 + 1) };
}

/** What the client receives for one record. */
export function renderCriLogRecord(rec: CriLogRecord, timestamps: boolean): string {
  return (timestamps ? `${rec.timestamp} ` : '') + rec.content + (rec.partial ? '' : '\n');
}
