/**
 * The file source's I/O (Go's pkg/kubelet/config/file.go and file_linux.go): staticPodPath is a
 * directory of manifests or one manifest file.
 *
 * Directory: every entry whose name does not start with `.` (Go globs `[^.]*`), in name order;
 * regular files (symbolic links followed) are read; subdirectories are not recursed into, and they,
 * FIFOs, devices, dangling symbolic links and link loops are rejected by path with the reason (Go
 * logs them), so nothing is skipped without a word. A file that is not a valid pod is rejected by its path and reason;
 * the other files' pods flow on (in Go, and here, its pod is then REMOVEd).
 * One file: a manifest that cannot be used is a failed read, so the pod read before stays (Go
 * returns the error without an update). A path that does not exist is an empty snapshot with a
 * rejection naming the path (Go sends an empty SET so the source counts as seen, and logs).
 * Any file name is accepted, whatever its extension, as in Go. Files over 10 MiB are rejected
 * (Go's maxConfigLength for manifests), by fstat before reading.
 * Watching: node:fs watch on the directory (or on a single file's directory, filtered to its
 * name, so editors that replace the file by renaming are still seen). When the directory goes away
 * or appears, the watch reports itself lost and the actor watches again.
 */
import { statSync, watch as fsWatch, type FSWatcher } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { dropDuplicatePods, originsOf, type PodFromOrigin } from '../../domain/pod-config/duplicates.js';
import type { RejectedManifest } from '../../domain/pod-config/types.js';
import type { Closable, FileSourceReader, SourceRead } from '../../ports/pod-sources.js';
import { kindOf, readRegularFile } from '../bounded-input/read-regular-file.js';
import { decodeManifestInline, type ManifestDecoder } from './decode-manifest.js';

export const MAX_MANIFEST_BYTES = 10 * 1024 * 1024;

const errnoOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | undefined)?.code;
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

function isDirectorySync(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export interface FileSourceOptions {
  path: string;
  nodeName: string;
  /** How a manifest's text becomes its pod; the daemon decodes large ones off the event loop (off-thread-decoder.ts). */
  decode?: ManifestDecoder;
}

export function createFileSourceReader(opts: FileSourceOptions): FileSourceReader {
  const decode = opts.decode ?? decodeManifestInline;
  // Go trims trailing separators (inotify wants a clean path); the path is also part of each UID.
  const root = opts.path.length > 1 ? opts.path.replace(/\/+$/, '') : opts.path;

  // What each file gave at its last read, by its stat identity: the periodic re-read (every
  // fileCheckFrequency, 20 s) then parses only files that changed. Decoding is a pure function of
  // the text, the path and the node name, so a file with the same identity gives the same answer;
  // a bad file is still reported on every read, as in Go. (Go parses every file every time; this
  // differs only where a file is rewritten with the same size within one timestamp tick of a
  // filesystem with coarse timestamps: ext4, xfs, btrfs and tmpfs keep nanoseconds.)
  const lastReads = new Map<string, { identity: string; result: PodFromOrigin | RejectedManifest }>();
  /** Which file gave each pod at the last read: of two files with one pod name, that one stays. */
  let lastOrigins = new Map<string, string>();

  async function readManifest(file: string): Promise<PodFromOrigin | RejectedManifest> {
    let text: string;
    let identity: string;
    try {
      const info = await stat(file);
      identity = `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
      const last = lastReads.get(file);
      if (last?.identity === identity) return last.result;
      // Regular files only, the size checked before reading: a FIFO or /dev/zero is refused, not read.
      ({ text } = await readRegularFile(file, MAX_MANIFEST_BYTES));
    } catch (err) {
      return { origin: file, reason: `can't read manifest: ${messageOf(err)}` };
    }
    const result = await decode(file, text, opts.nodeName);
    lastReads.set(file, { identity, result });
    return result;
  }

  /** Forgets files that are no longer there, so the cache never outgrows the directory. */
  function keepOnly(files: ReadonlySet<string>): void {
    for (const file of lastReads.keys()) if (!files.has(file)) lastReads.delete(file);
  }

  async function readDirectory(dir: string): Promise<SourceRead> {
    let names: string[];
    try {
      names = (await readdir(dir)).filter((name) => !name.startsWith('.')).sort();
    } catch (err) {
      return { kind: 'failed', origin: dir, reason: `can't list manifest directory: ${messageOf(err)}` };
    }
    const found: PodFromOrigin[] = [];
    const rejected: RejectedManifest[] = [];
    keepOnly(new Set(names.map((name) => join(dir, name))));
    for (const name of names) {
      const file = join(dir, name);
      const skipped = await whyNotAManifest(file);
      if (skipped === 'gone') continue; // removed between listing and reading: the next read settles it
      const result = skipped ?? (await readManifest(file));
      if ('pod' in result) found.push(result);
      else rejected.push(result);
    }
    const { kept, rejected: duplicates } = dropDuplicatePods(found, lastOrigins);
    lastOrigins = originsOf(kept);
    return { kind: 'snapshot', pods: kept.map((entry) => entry.pod), rejected: [...rejected, ...duplicates] };
  }

  /**
   * Why a directory entry is not read as a manifest, as a rejection naming it (Go logs each of these:
   * "Not recursing into manifest path", "Can't get metadata"), or null when it is a regular file.
   */
  async function whyNotAManifest(file: string): Promise<RejectedManifest | 'gone' | null> {
    try {
      const info = await stat(file);
      if (info.isFile()) return null;
      if (info.isDirectory()) return { origin: file, reason: 'is a directory, not recursing into it' };
      return { origin: file, reason: `is ${kindOf(info)}, not a regular file` };
    } catch (err) {
      // A dangling symbolic link or a loop of them: the link itself is there, what it names is not.
      const linkThere = await lstat(file).then(() => true, () => false);
      if (!linkThere) return 'gone';
      return { origin: file, reason: `can't get metadata: ${messageOf(err)}` };
    }
  }

  async function read(): Promise<SourceRead> {
    let info;
    try {
      info = await stat(root);
    } catch (err) {
      if (errnoOf(err) === 'ENOENT') {
        return { kind: 'snapshot', pods: [], rejected: [{ origin: root, reason: 'path does not exist, ignoring' }] };
      }
      return { kind: 'failed', origin: root, reason: `unable to read manifest path: ${messageOf(err)}` };
    }
    if (info.isDirectory()) return readDirectory(root);
    if (!info.isFile()) return { kind: 'failed', origin: root, reason: 'path is not a directory or file' };
    const result = await readManifest(root);
    if ('pod' in result) return { kind: 'snapshot', pods: [result.pod], rejected: [] };
    return { kind: 'failed', origin: result.origin, reason: result.reason };
  }

  function watch(onEvent: (event: 'changed' | 'lost') => void): Closable {
    // A directory is watched itself. A single file, or a path not there yet, is watched through its
    // parent directory, filtered to its name, so a replace-by-rename or a late mkdir is seen too.
    const watchingDirectory = isDirectorySync(root);
    const watched = watchingDirectory ? root : dirname(root);
    const only = watchingDirectory ? null : basename(root);
    let closed = false;
    const lose = () => {
      if (closed) return;
      closed = true;
      watcher.close();
      onEvent('lost');
    };
    const watcher: FSWatcher = fsWatch(watched, { persistent: false }, (_type, filename) => {
      if (closed) return;
      const name = filename === null ? null : String(filename);
      if (only !== null && name !== null && name !== only) return;
      if (only === null && name !== null && name.startsWith('.')) return; // dot files are never manifests
      // The watch no longer fits the path (the directory went away, or appeared where we waited
      // for it): end it, so the caller reads and watches again.
      if (isDirectorySync(root) !== watchingDirectory) lose();
      else onEvent('changed');
    });
    watcher.on('error', lose);
    return {
      close() {
        closed = true;
        watcher.close();
      },
    };
  }

  return { read, watch };
}
