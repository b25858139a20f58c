/**
 * The journal on disk: JSON Lines appended in the background so actors never wait on I/O.
 *
 * - `append` serialises the record and queues the line. Lines gather for `batchMs` before a write,
 *   one write is in flight at a time, and it carries everything queued meanwhile: a busy moment's
 *   records go in one write instead of many small ones (each a trip through the thread pool), and
 *   throughput does not depend on fsync. `flush` writes at once. A pod
 *   written before, in a pod source's snapshot or anywhere else, is written as a reference to where
 *   it was written whole (pod-refs.ts): one walk of each record. A start-up phase's spawn writes the
 *   earlier phases' outputs it carries as references to where they were written whole (outputs-refs.ts),
 *   and an event between machines is written once, its delivery a reference to its send (event-refs.ts).
 * - Records that arrive before `open` (the file's place is known only once the configuration is)
 *   are kept and written right after the header.
 * - Rotation by size: when the active file passes `maxSegmentBytes`, it is renamed `PATH.<n>` (n
 *   counts up from 1) and a new PATH starts with a copy of the header (`segment` n+1). Only the newest
 *   `maxSegments` files are kept. A segment holds at least one line besides its header, so a line
 *   longer than a segment (a checkpoint) is written whole instead of rotating for ever.
 * - With `onRotate` (the daemon queues a checkpoint there), a new segment does not rotate again
 *   until that checkpoint is in it: a large batch may overfill it, but every rotated segment holds
 *   a checkpoint, so the kept files replay alone however the writes were batched. Should no
 *   checkpoint be queued by the end of the next batch (none is made before the supervisor starts),
 *   the hold ends there.
 * - A crash leaves at most the last line torn: lines are written whole, in order, and never rewritten.
 * - Every file is the owner's alone (0600, set on the open file so an older 0644 file is fixed too):
 *   the journal holds pod specs, node names and the command line. A directory it makes is 0750, the
 *   mode of the kubelet's own directories (it may be the root dir's first).
 */
import { openSync, closeSync, fchmodSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { makeKubeletDirectorySync } from '../fs/make-directories.js';
import type { JournalHeader, JournalRecord } from '../../domain/journal/record.js';
import { EventCompactor } from '../../domain/journal/event-refs.js';
import { OutputsCompactor } from '../../domain/journal/outputs-refs.js';
import { PodCompactor } from '../../domain/journal/pod-refs.js';
import { KubeletError } from '../../domain/errors.js';
import { KUBELET_DATA_DIRECTORY_MODE } from '../../domain/node/data-directories.js';
import type { JournalSink } from '../../ports/journal.js';

/** Owner read and write only. */
const FILE_MODE = 0o600;

export interface FileSinkOptions {
  path: string;
  maxSegmentBytes?: number;
  maxSegments?: number;
  /** Called once if writing fails; the sink then drops records instead of throwing into actors. */
  onError?: (err: KubeletError) => void;
  /** Called after each rotation, once the new segment has its header (the daemon writes a checkpoint). */
  onRotate?: () => void;
  /** How long queued lines wait for more before they are written (default JOURNAL_BATCH_MS). */
  batchMs?: number;
}

/**
 * Long enough to gather what one busy moment journals into one write, short enough that a process
 * killed outright loses only the last moment's records (an orderly stop flushes everything).
 */
export const JOURNAL_BATCH_MS = 50;

interface QueuedLine {
  text: string;
  checkpoint: boolean;
}

export class FileJournalSink implements JournalSink {
  private header: JournalHeader | null = null;
  private queue: QueuedLine[] = [];
  private handle: FileHandle | null = null;
  private writing: Promise<void> | null = null;
  /** Lines are queued and wait for more: the write starts when this fires (or at a flush). */
  private batchTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly batchMs: number;
  private bytesInSegment = 0;
  private headerBytes = 0;
  private segment = 1;
  private failed = false;
  /** A rotation asked for a checkpoint that is not written yet: do not rotate again before it is. */
  private awaitingCheckpoint = false;
  private readonly maxSegmentBytes: number;
  private readonly maxSegments: number;
  /** A pod written before, in any record, written as a reference to where it was written whole (pod-refs.ts). */
  private readonly pods = new PodCompactor();
  /** A phase output an earlier phase's spawn carried, written as a reference to where it was written whole (outputs-refs.ts). */
  private readonly outputs = new OutputsCompactor();
  /** An event between machines, written once: its delivery refers to the record that sent it (event-refs.ts). */
  private readonly events = new EventCompactor();

  constructor(private readonly opts: FileSinkOptions) {
    this.maxSegmentBytes = opts.maxSegmentBytes ?? 64 * 1024 * 1024;
    this.maxSegments = Math.max(1, opts.maxSegments ?? 8);
    this.batchMs = opts.batchMs ?? JOURNAL_BATCH_MS;
  }

  open(header: JournalHeader): void {
    if (this.header) return;
    this.header = header;
    makeKubeletDirectorySync(dirname(this.opts.path), KUBELET_DATA_DIRECTORY_MODE);
    // A fresh run starts a fresh file; the header is written synchronously so even a crash in the
    // very next instant leaves a readable (if empty) log.
    const line = JSON.stringify(header) + '\n';
    const fd = openSync(this.opts.path, 'w', FILE_MODE);
    try {
      fchmodSync(fd, FILE_MODE);
      writeSync(fd, line);
    } finally {
      closeSync(fd);
    }
    this.bytesInSegment = this.headerBytes = Buffer.byteLength(line);
    this.schedule();
  }

  append(record: JournalRecord): void {
    if (this.failed) return;
    const text = JSON.stringify(this.pods.compact(this.outputs.compact(this.events.compact(record)))) + '\n';
    this.queue.push({ text, checkpoint: record.type === 'checkpoint' });
    if (this.header) this.schedule();
  }

  async flush(): Promise<void> {
    while (this.header && (this.writing || this.queue.length > 0) && !this.failed) {
      this.writeNow();
      await this.writing;
    }
  }

  async close(): Promise<void> {
    await this.flush();
    await this.handle?.close();
    this.handle = null;
  }

  private schedule(): void {
    if (this.writing || this.batchTimer || this.queue.length === 0 || this.failed) return;
    this.batchTimer = setTimeout(() => this.writeNow(), this.batchMs);
  }

  private writeNow(): void {
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = null;
    if (this.writing || this.queue.length === 0 || this.failed) return;
    this.writing = this.writeBatch().finally(() => {
      this.writing = null;
      if (this.queue.length > 0) this.schedule();
    });
  }

  private async writeBatch(): Promise<void> {
    const lines = this.queue;
    this.queue = [];
    try {
      let chunk: string[] = [];
      let chunkBytes = 0;
      for (const line of lines) {
        const n = Buffer.byteLength(line.text);
        const full = this.bytesInSegment + chunkBytes + n > this.maxSegmentBytes && this.bytesInSegment + chunkBytes > this.headerBytes;
        if (full && !this.awaitingCheckpoint) {
          await this.write(chunk.join(''));
          chunk = [];
          chunkBytes = 0;
          await this.rotate();
        }
        if (line.checkpoint) this.awaitingCheckpoint = false;
        chunk.push(line.text);
        chunkBytes += n;
      }
      if (chunk.length > 0) await this.write(chunk.join(''));
      // onRotate queues its checkpoint synchronously, so it is in the next batch at the latest; if
      // none is queued now, none is coming.
      if (this.awaitingCheckpoint && !this.queue.some((l) => l.checkpoint)) this.awaitingCheckpoint = false;
    } catch (err) {
      this.failed = true;
      this.opts.onError?.(new KubeletError('KLT_ERR_JOURNAL_IO', `cannot write the event log ${this.opts.path}`, { cause: err }));
    }
  }

  private async write(data: string): Promise<void> {
    if (data.length === 0) return;
    this.handle ??= await open(this.opts.path, 'a', FILE_MODE);
    await this.handle.write(data);
    this.bytesInSegment += Buffer.byteLength(data);
  }

  private async rotate(): Promise<void> {
    await this.handle?.close();
    this.handle = null;
    renameSync(this.opts.path, `${this.opts.path}.${this.segment}`);
    const oldest = this.segment + 1 - this.maxSegments;
    if (oldest >= 1) rmSync(`${this.opts.path}.${oldest}`, { force: true });
    this.segment += 1;
    const header = JSON.stringify({ ...this.header, segment: this.segment }) + '\n';
    this.handle = await open(this.opts.path, 'w', FILE_MODE);
    await this.handle.chmod(FILE_MODE);
    await this.handle.write(header);
    this.bytesInSegment = this.headerBytes = Buffer.byteLength(header);
    if (this.opts.onRotate) {
      this.awaitingCheckpoint = true;
      this.opts.onRotate();
    }
  }
}

/** Keeps records in memory: tests and replay. */
export class MemoryJournalSink implements JournalSink {
  header: JournalHeader | null = null;
  readonly records: JournalRecord[] = [];
  open(header: JournalHeader): void {
    this.header = header;
  }
  append(record: JournalRecord): void {
    this.records.push(record);
  }
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}
