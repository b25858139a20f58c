/**
 * Reads a CRI container log file for `/containerLogs`, as Go's kuberuntime ReadLogs does: start at
 * the last `tailLines` lines (or the top), skip records before `sinceMs`, render each record (with
 * its timestamp when asked), stop after `limitBytes` bytes, and with `follow` keep polling the file
 * for appended lines until the container is no longer running, the client goes, or `maxFollowMs`
 * passes (Go's write timeout, 4 h, bounds its streams the same way).
 *
 * Memory stays bounded: the file is read in 64 KiB chunks; finding the tail keeps only the offsets
 * of the last `tailLines` lines. Lines not in CRI format are skipped, as Go skips them.
 * Not handled (Go handles them): log rotation while following (we keep reading the old file).
 */
import { open, type FileHandle } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseCriLogLine, renderCriLogRecord } from '../../domain/http/cri-log-line.js';
import type { LogOptions } from '../../domain/http/log-options.js';

const CHUNK = 64 * 1024;

export interface FollowControl {
  /** Whether the container is still running; follow ends when it says no. */
  running: () => Promise<boolean> | boolean;
  pollMs: number;
  maxFollowMs: number;
  signal?: AbortSignal;
}

/** Byte offset where the last `n` lines of the file begin (0 when it has fewer). */
export async function tailStartOffset(fh: FileHandle, n: number): Promise<number> {
  if (n === 0) return (await fh.stat()).size;
  // Ring of the start offsets of the last n+1 line starts seen; a trailing partial line counts.
  const starts: number[] = [0];
  const buf = Buffer.alloc(CHUNK);
  let pos = 0;
  let lastByteNewline = false;
  for (;;) {
    const { bytesRead } = await fh.read(buf, 0, CHUNK, pos);
    if (bytesRead === 0) break;
    for (let i = 0; i < bytesRead; i++) {
      if (buf[i] === 0x0a) {
        starts.push(pos + i + 1);
        if (starts.length > n + 1) starts.shift();
      }
    }
    lastByteNewline = buf[bytesRead - 1] === 0x0a;
    pos += bytesRead;
  }
  // A file ending in "\n" has an empty "line" after the last newline: it is not a line.
  const lineStarts = lastByteNewline ? starts.slice(0, -1) : starts;
  return lineStarts.length > n ? lineStarts[lineStarts.length - n]! : lineStarts[0] ?? 0;
}

/** The rendered output, chunk by chunk; ends on EOF (or, following, when the container stops). */
export async function* readContainerLog(path: string, opts: LogOptions, follow?: FollowControl): AsyncGenerator<Buffer> {
  const fh = await open(path, 'r');
  try {
    let pos = opts.tailLines === null ? 0 : await tailStartOffset(fh, opts.tailLines);
    let budget = opts.limitBytes ?? Infinity;
    let pending = Buffer.alloc(0);
    const buf = Buffer.alloc(CHUNK);
    const deadline = follow ? Date.now() + follow.maxFollowMs : 0;
    let finalPass = false;

    // Render one complete line; returns false once the byte budget is spent.
    const emit = function* (line: Buffer): Generator<Buffer, boolean> {
      const rec = parseCriLogLine(line.toString('utf8'));
      if (!rec || (opts.sinceMs !== null && rec.timeMs < opts.sinceMs)) return true;
      const out = Buffer.from(renderCriLogRecord(rec, opts.timestamps), 'utf8');
      if (out.length >= budget) {
        yield out.subarray(0, budget);
        budget = 0;
        return false;
      }
      budget -= out.length;
      yield out;
      return true;
    };

    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, CHUNK, pos);
      if (bytesRead > 0) {
        pos += bytesRead;
        pending = pending.length === 0 ? Buffer.from(buf.subarray(0, bytesRead)) : Buffer.concat([pending, buf.subarray(0, bytesRead)]);
        let nl: number;
        while ((nl = pending.indexOf(0x0a)) >= 0) {
          const line = pending.subarray(0, nl + 1);
          pending = pending.subarray(nl + 1);
          if (!(yield* emit(line))) return;
        }
        continue;
      }
      // End of file: without follow (or once the container has stopped) a last unterminated line
      // is still a line; while following it may be half written, so wait for its newline.
      if (!follow || finalPass) {
        if (pending.length > 0) yield* emit(pending);
        return;
      }
      if (follow.signal?.aborted || Date.now() >= deadline) return;
      if (!(await follow.running())) {
        finalPass = true; // one more read: lines written just before the container stopped
        continue;
      }
      try {
        await sleep(follow.pollMs, undefined, follow.signal ? { signal: follow.signal } : undefined);
      } catch {
        return; // aborted: the client went away
      }
    }
  } finally {
    await fh.close();
  }
}
