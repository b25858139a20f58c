/**
 * An open file's lines, read in fixed-size chunks: memory holds one chunk and the line being read,
 * however large the file. Lines are split on the newline byte, which never occurs inside a
 * multi-byte UTF-8 character, and each is decoded whole: a character cut by a chunk's end stays one.
 * A line is told as the file's last only once what follows it is known, so a reader can treat a
 * torn last line apart from damage in the middle.
 */
import { readSync } from 'node:fs';

/** Few reads for a 64 MiB segment, and small beside the records read from it. */
export const READ_CHUNK_BYTES = 1024 * 1024;

const NEWLINE = 0x0a;

export interface ReadLinesOptions {
  chunkBytes?: number;
  /** Read no further than this many bytes (a later pass over a file that may have grown since). */
  limit?: number;
}

/**
 * Calls `onLine` with each line of `fd` from its start, numbered from 1, without its newline; `last`
 * is true for the final one (text after the last newline, or else the line that newline ends).
 * Returns the bytes read.
 */
export function forEachLine(fd: number, onLine: (text: string, line: number, last: boolean) => void, opts: ReadLinesOptions = {}): number {
  const chunkBytes = opts.chunkBytes ?? READ_CHUNK_BYTES;
  const limit = opts.limit ?? Infinity;
  const buffer = Buffer.allocUnsafe(chunkBytes);
  // The start of a line that has not ended yet; copied, since the buffer is read into again.
  let carried: Buffer[] = [];
  // One line behind: whether it is the last is known when the next one is.
  let held: string | undefined;
  let count = 0;
  const found = (text: string) => {
    if (held !== undefined) onLine(held, ++count, false);
    held = text;
  };
  let position = 0;
  while (position < limit) {
    const n = readSync(fd, buffer, 0, Math.min(chunkBytes, limit - position), position);
    if (n === 0) break;
    position += n;
    const chunk = buffer.subarray(0, n);
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      found(decode(carried, chunk.subarray(start, end)));
      carried = [];
      start = end + 1;
    }
    if (start < n) carried.push(Buffer.from(chunk.subarray(start)));
  }
  // Text after the last newline is a line; nothing after it is not.
  if (carried.length > 0) found(decode(carried, Buffer.alloc(0)));
  if (held !== undefined) onLine(held, ++count, true);
  return position;
}

function decode(carried: readonly Buffer[], rest: Buffer): string {
  return carried.length === 0 ? rest.toString('utf8') : Buffer.concat([...carried, rest]).toString('utf8');
}
