/**
 * The CRI container log format, as containerd writes it and the kubelet's log reader parses it:
 *
 *   <RFC3339Nano UTC timestamp> <stdout|stderr> <F|P> <content>\n
 *
 * One record per line of output. A line longer than the cap is cut into `P` (partial) records of
 * exactly `maxLineBytes` bytes, the rest of it ending in one `F` (full) record; containerd's default cap
 * (`max_container_log_line_size`) is 16 KiB. Like containerd (bufio ReadLine), the line end ("\n" or
 * "\r\n") is not part of the content, an incomplete line is held back until its newline arrives, and
 * whatever is left when the stream ends is written as `F`.
 *
 * This module imports nothing from the project: the detached shim (shim.ts) runs it in its own process.
 */

export type LogStreamName = 'stdout' | 'stderr';
export type LogTag = 'F' | 'P';

/** containerd's default max_container_log_line_size. */
export const DEFAULT_MAX_LOG_LINE_BYTES = 16 * 1024;

const NS_PER_MS = 1_000_000n;

/**
 * Go's time.RFC3339Nano in UTC: nine fraction digits with trailing zeros dropped (and the dot with
 * them when the fraction is zero), which is what containerd's timestamps look like.
 */
export function formatRfc3339NanoUtc(epochNs: bigint): string {
  const ms = epochNs / NS_PER_MS;
  const nsInSecond = epochNs % 1_000_000_000n;
  const seconds = new Date(Number(ms)).toISOString().slice(0, 19); // YYYY-MM-DDTHH:MM:SS
  const fraction = nsInSecond.toString().padStart(9, '0').replace(/0+$/, '');
  return fraction === '' ? `${seconds}Z` : `${seconds}.${fraction}Z`;
}

/** Wall-clock time in nanoseconds since the epoch (microsecond resolution is what Node offers). */
export function wallClockNs(): bigint {
  const micros = Math.round((performance.timeOrigin + performance.now()) * 1000);
  return BigInt(micros) * 1000n;
}

export function formatCriLogRecord(epochNs: bigint, stream: LogStreamName, tag: LogTag, content: Buffer): Buffer {
  const head = Buffer.from(`${formatRfc3339NanoUtc(epochNs)} ${stream} ${tag} `);
  return Buffer.concat([head, content, NEWLINE]);
}

const NEWLINE = Buffer.from('\n');
const LF = 0x0a;
const CR = 0x0d;

export interface CriLogStreamOptions {
  /** Where finished records go (the shim appends them to the log file). */
  sink: (record: Buffer) => void;
  now?: () => bigint;
  maxLineBytes?: number;
}

/**
 * Turns one output stream's byte chunks into CRI log records. One instance per stream; both streams of
 * a container share a sink, so records interleave line by line in the order lines completed.
 */
export class CriLogStreamFormatter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private readonly now: () => bigint;
  private readonly maxLineBytes: number;

  constructor(
    readonly stream: LogStreamName,
    private readonly options: CriLogStreamOptions,
  ) {
    this.now = options.now ?? wallClockNs;
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LOG_LINE_BYTES;
    if (!(this.maxLineBytes > 0)) throw new RangeError('maxLineBytes must be positive');
  }

  write(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(LF, start);
      if (newline === -1) break;
      this.hold(chunk.subarray(start, newline));
      this.emitLine();
      start = newline + 1;
    }
    if (start < chunk.length) this.hold(chunk.subarray(start));
  }

  /** End of stream: an unterminated last line is still a full record. */
  end(): void {
    if (this.pendingBytes > 0) this.emitLine();
  }

  private hold(piece: Buffer): void {
    if (piece.length === 0) return;
    this.pending.push(piece);
    this.pendingBytes += piece.length;
    // Only a line that already exceeds the cap is cut: a line of exactly maxLineBytes stays one F record.
    while (this.pendingBytes > this.maxLineBytes) {
      const all = this.takePending();
      this.emit('P', all.subarray(0, this.maxLineBytes));
      const rest = all.subarray(this.maxLineBytes);
      if (rest.length > 0) {
        this.pending = [rest];
        this.pendingBytes = rest.length;
      }
    }
  }

  private emitLine(): void {
    let line = this.takePending();
    if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
    this.emit('F', line);
  }

  private takePending(): Buffer {
    const all = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    return all;
  }

  private emit(tag: LogTag, content: Buffer): void {
    this.options.sink(formatCriLogRecord(this.now(), this.stream, tag, content));
  }
}
