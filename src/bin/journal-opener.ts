/**
 * The journal's life in the daemon: records from the very first phase are kept in the sink until
 * the file's place is known (command.dependencies), then written after the header.
 *
 * Where: `--event-log PATH` names the file; a path ending in `/` (the default,
 * `<root-dir>/events/`) is a directory that gets one file per run, `<UTC start>-<pid>.jsonl`, with
 * `latest.jsonl` pointing at it, and keeps the newest MAX_RUNS run files.
 */
import { createHash } from 'node:crypto';
import { readdirSync, rmSync, symlinkSync } from 'node:fs';
import { makeKubeletDirectorySync } from '../adapters/fs/make-directories.js';
import { join } from 'node:path';
import { FileJournalSink } from '../adapters/journal-file/file-sink.js';
import { JOURNAL_FORMAT, JOURNAL_VERSION, type JournalHeader } from '../domain/journal/record.js';
import type { JournalOpener } from '../ports/journal-opener.js';
import { canonicalJson } from '../domain/journal/canonical-json.js';
import { KUBELET_DATA_DIRECTORY_MODE } from '../domain/node/data-directories.js';

export const MAX_RUNS = 10;

export interface JournalOpenerOptions {
  sink: { attach(sink: FileJournalSink): void; disable(): void };
  kubeletVersion: string;
  machinesSha256: string;
  startTime: Date;
  onError: (err: Error) => void;
  /** A segment's size before the file rotates (the sink's default when absent). */
  maxSegmentBytes?: number;
  /** After each rotation: the daemon journals a checkpoint, so the newest segments replay alone. */
  onRotate?: () => void;
}

export function resolveJournalPath(path: string, startTime: Date, pid: number): { file: string; dir: string | null } {
  if (!path.endsWith('/')) return { file: path, dir: null };
  const stamp = startTime.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return { file: join(path, `${stamp}-${pid}.jsonl`), dir: path };
}

export function createJournalOpener(opts: JournalOpenerOptions): JournalOpener {
  return {
    disable: () => opts.sink.disable(),
    async open({ path, nodeName, config }) {
      const { file, dir } = resolveJournalPath(path, opts.startTime, process.pid);
      if (dir) {
        // Often the first directory made under --root-dir, and so the root dir too: Go's mode for it.
        makeKubeletDirectorySync(dir, KUBELET_DATA_DIRECTORY_MODE);
        pruneOldRuns(dir);
      }
      const sink = new FileJournalSink({
        path: file,
        onError: opts.onError,
        ...(opts.maxSegmentBytes !== undefined ? { maxSegmentBytes: opts.maxSegmentBytes } : {}),
        ...(opts.onRotate ? { onRotate: opts.onRotate } : {}),
      });
      const header: JournalHeader = {
        format: JOURNAL_FORMAT,
        version: JOURNAL_VERSION,
        kubeletVersion: opts.kubeletVersion,
        startTime: opts.startTime.toISOString(),
        nodeName,
        configSha256: createHash('sha256').update(canonicalJson(config)).digest('hex'),
        machinesSha256: opts.machinesSha256,
        segment: 1,
      };
      sink.open(header);
      opts.sink.attach(sink);
      if (dir) pointLatestAt(dir, file);
      return { path: file, close: () => sink.close() };
    },
  };
}

function pruneOldRuns(dir: string): void {
  const runs = readdirSync(dir).filter((n) => /^\d{8}T\d{6}Z-\d+\.jsonl$/.test(n)).sort();
  for (const old of runs.slice(0, Math.max(0, runs.length - (MAX_RUNS - 1)))) {
    for (const seg of readdirSync(dir).filter((n) => n === old || n.startsWith(`${old}.`))) rmSync(join(dir, seg), { force: true });
  }
}

function pointLatestAt(dir: string, file: string): void {
  const link = join(dir, 'latest.jsonl');
  rmSync(link, { force: true });
  try {
    symlinkSync(file.slice(dir.length).replace(/^\/+/, ''), link);
  } catch {
    // A file system without symlinks: `report` then needs the run file's own name.
  }
}
