/**
 * Reads a CRI container log file for `/containerLogs`, as Go's kuberuntime ReadLogs does: start at
 * the last `tailLines` lines (or the top), skip records before `sinceMs`, render each record (with
 * its timestamp when asked), stop after `limitBytes` bytes.
 *
 * With `follow` it keeps reading appended lines until the followed container instance is no longer
 * running, the client goes, or `maxFollowMs` passes (Go's 4 h write timeout bounds its streams the
 * same way). Like Go:
 * - At the end of the file a half-written line is held back until its newline arrives.
 * - Each time it finds nothing new it asks `running()`; once that says no, it reads to the end of
 *   the file one last time and ends. `running()` is about one instance (Go: one container ID), so a
 *   restart ends the follow: the next instance writes another file (`<restartCount>.log`).
 * - A rotation (the file renamed, a new one created at the same path: Go's container log manager
 *   and ReopenContainerLog) moves it to the new file.
 * Where we differ, on purpose:
 * - Go reopens on the first fsnotify rename/create event and drops what the old file received after
 *   its last read, and a path still missing at that moment is not looked at again. We look at the
 *   path on every poll and switch only once a different file is there; before switching we read the
 *   old file to its end (and again a poll later, for a runtime's last write to it), so no line is
 *   lost or read twice. A line left without its newline in the old file is final (its writer moved
 *   on): we send it, Go drops it. Same when the container stops.
 * - We poll (`pollMs`) instead of watching with inotify. fs.watch reports a rename as a 'rename'
 *   on the old inode, may coalesce or miss events, and costs a watch per follower; Go itself falls
 *   back to a forced re-read every second (logForceCheckPeriod) because events are not enough. A
 *   poll is one read and one stat of a file already in the page cache.
 * - The path is looked at every poll period also while the follower catches up with a fast writer,
 *   and every file seen there is held open until read, so a follower behind by several rotations
 *   skips none.
 * Not handled, as in Go: copytruncate rotation; a file rotated twice within one poll period (the
 *   middle one is never seen).
 *
 * Only a regular file is read, and never through a link (./log-directory.ts): a pod can plant links
 * in its own log directory, and a log that is one is an error naming it, never the target's content.
 *
 * Memory stays bounded: the file is read in 64 KiB chunks; finding the tail keeps only the offsets
 * of the last `tailLines` lines; at most two files are open (the old one until it is read to its
 * end), and one more for each further rotation a follower is behind. Lines not in CRI format are skipped, as Go skips them.
 */
import type { FileHandle } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseCriLogLine, renderCriLogRecord } from '../../domain/kubelet-server/cri-log-line.js';
import type { LogOptions } from '../../domain/kubelet-server/log-options.js';
import { ChunkQueue } from '../stream-protocols/chunk-queue.js';
import { openLogFile } from './log-directory.js';

const CHUNK = 64 * 1024;

export interface FollowControl {
  /** Whether the followed container instance is still running; follow ends when it says no. */
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

/**
 * The file now at `path` when it is no longer the one `current` has open (a rotation), else null.
 * A path missing for the moment (renamed, not yet created again) is not a rotation yet: the writer
 * may still be writing to the old file. Nor is anything but a regular file there: it is never read.
 */
async function openIfReplaced(path: string, current: FileHandle): Promise<FileHandle | null> {
  let next: FileHandle;
  try {
    next = await openLogFile(path);
  } catch {
    return null;
  }
  const [now, held] = await Promise.all([next.stat(), current.stat()]);
  if (now.ino === held.ino && now.dev === held.dev) {
    await next.close();
    return null;
  }
  return next;
}

/** Waits one poll period; false when the client went away meanwhile. */
async function pause(follow: FollowControl): Promise<boolean> {
  try {
    await sleep(follow.pollMs, undefined, follow.signal ? { signal: follow.signal } : undefined);
    return true;
  } catch {
    return false;
  }
}

/** The rendered output, chunk by chunk; ends on EOF (or, following, when the container stops). */
export async function* readContainerLog(path: string, opts: LogOptions, follow?: FollowControl): AsyncGenerator<Buffer> {
  let fh = await openLogFile(path);
  // The files that replaced `fh` at `path`, oldest first, each opened as soon as it was seen; the
  // first is read once `fh` is drained. More than one only while the follower is behind.
  const successors: FileHandle[] = [];
  // When the path was last looked at for a rotation.
  let lookedAtMs = Date.now();
  // Looks at the path: a file that replaced the newest one open is added. True when one was.
  const lookAtPath = async (): Promise<boolean> => {
    lookedAtMs = Date.now();
    const replaced = await openIfReplaced(path, successors.at(-1) ?? fh);
    if (replaced) successors.push(replaced);
    return replaced !== null;
  };
  try {
    let pos = opts.tailLines === null ? 0 : await tailStartOffset(fh, opts.tailLines);
    let budget = opts.limitBytes ?? Infinity;
    // The line being read, in the pieces its reads brought: joined once, when its newline comes.
    const pending = new ChunkQueue();
    const buf = Buffer.alloc(CHUNK);
    const deadline = follow ? Date.now() + follow.maxFollowMs : 0;
    let finalPass = false;
    // Set at the first end of a rotated-away file: the next end of it is the last.
    let drained = false;

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
    // The last bytes of a file that will not grow any more are a line even without a newline.
    const flushPending = function* (): Generator<Buffer, boolean> {
      return pending.length === 0 ? true : yield* emit(pending.take(pending.length));
    };

    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, CHUNK, pos);
      if (bytesRead > 0) {
        drained = false;
        pos += bytesRead;
        const read = buf.subarray(0, bytesRead);
        let start = 0;
        // Only the new bytes are searched for a newline: what is held has none.
        for (let nl = read.indexOf(0x0a); nl >= 0; nl = read.indexOf(0x0a, start)) {
          pending.push(read.subarray(start, nl + 1));
          start = nl + 1;
          if (!(yield* emit(pending.take(pending.length)))) return;
        }
        // `buf` is read into again: the rest of an unfinished line is kept as a copy.
        if (start < bytesRead) pending.push(Buffer.from(read.subarray(start)));
        // A follower behind a fast writer looks at the path while it catches up too: a file that
        // is at the path only between two rotations would otherwise be skipped.
        if (follow && Date.now() - lookedAtMs >= follow.pollMs) await lookAtPath();
        continue;
      }
      // End of file. Without follow (or once the container has stopped) the file is complete.
      if (!follow || finalPass) {
        yield* flushPending();
        return;
      }
      if (successors.length > 0) {
        // The rotated-away file is read to its end twice, a poll apart, before going on at the top of
        // its successor: a runtime may finish a write to the old file just after the new one appeared
        // (containerd creates the new file, then swaps its writer).
        if (!drained) {
          drained = true;
          if (!(await pause(follow))) return;
          continue;
        }
        drained = false;
        if (!(yield* flushPending())) return;
        await fh.close();
        [fh, pos] = [successors.shift()!, 0];
        continue;
      }
      if (follow.signal?.aborted || Date.now() >= deadline) return;
      if (await lookAtPath()) continue; // read what the old file received since the last read, then switch
      if (!(await follow.running())) {
        finalPass = true; // one more read: lines written just before the container stopped
        continue;
      }
      if (!(await pause(follow))) return;
    }
  } finally {
    for (const f of successors) await f.close();
    await fh.close();
  }
}
