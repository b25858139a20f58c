/**
 * Go's AtomicWriter (pkg/volume/util/atomic_writer.go): makes a volume directory hold a payload so
 * that a reader sees the old content or the new, never a mix. The real files live in a hidden
 * timestamped directory (`..2024_05_01_12_00_00.123456789`); `..data` is a symlink to it, and each
 * top-level name of the payload is a symlink `name → ..data/name` (nested files are reached through
 * their top-level directory's link). An update writes a new timestamped directory in full, points a
 * fresh `..data_tmp` link at it and renames that over `..data`: one rename switches every file at
 * once. Then links for new top-level names are made, links for names no longer in the payload are
 * removed, and the old timestamped directory is deleted.
 *
 * Names starting with `..` belong to the writer; payload paths may not start with one. Writes to one
 * target directory are serialized here (Go leaves that to the caller); nothing else may write there.
 *
 * Calls that nothing orders run side by side: on the thread pool each call's answer waits for a
 * turn of the event loop, and in a burst of pods a configMap's write of two files made some twenty
 * of those turns in a row. But never more than `concurrency` of one write's calls at once, and
 * never more pending than that (bounded-calls.ts): the payload's size is the pod's to choose, and a
 * call of the thread pool holds its file open until its answer's turn comes. Go writes one file at
 * a time.
 */
import { join } from 'node:path';
import { KubeletError } from '../../domain/errors.js';
import { dataDirectoryMode, fsGroupMode, volumeEntryModes, type VolumeEntryMode } from '../../domain/volumes/fs-group-modes.js';
import { checkedPayloadPath } from '../../domain/volumes/payload-path.js';
import type { Payload, PayloadFile } from '../../domain/volumes/sources.js';
import type { Clock } from '../../ports/clock.js';
import type { Random } from '../../ports/random.js';
import { allBounded } from '../fs/bounded-calls.js';
import { callSlots } from '../fs/call-slots.js';
import { mathRandom } from '../math-random.js';
import { systemClock } from '../system-clock.js';
import { limitedCalls, threadPoolCalls, type FsCalls } from './fs-calls.js';
import { turnIfLarge } from './large-payload.js';
import { allOrFirstError } from './settled-calls.js';

/**
 * A write's calls under way at once, by default. The thread pool's 4 threads are the limit: more
 * calls at once write no faster, and one at a time is much slower (docs/FINDINGS.md).
 */
export const defaultWriteConcurrency = 8;

export const dataDirName = '..data';
export const newDataDirName = '..data_tmp';

const timestampedNamePattern = /^\.\.\d{4}_\d{2}_\d{2}_\d{2}_\d{2}_\d{2}\.\d+$/;

export interface AtomicWriteOptions {
  /** The pod's fsGroup: the new entries get this group and the modes SetVolumeOwnership gives them. */
  fsGroup?: number;
  /** Read-only in SetVolumeOwnership's sense (group r, not rw). Default true: every API-content volume is. */
  readOnly?: boolean;
  /** Names the timestamped directory (UTC); default the system clock. */
  clock?: Pick<Clock, 'now'>;
  /** Draws the timestamped directory's suffix; default Math.random. */
  random?: Random;
  /** How the file system is called (fs-calls.ts): inline on a tmpfs, through the thread pool (default) on a disk. */
  calls?: FsCalls;
  /** At most this many of the write's calls under way at once (default defaultWriteConcurrency). */
  concurrency?: number;
}

export interface AtomicWriteResult {
  /** false: `..data` already held this payload, byte for byte and mode for mode; nothing was written. */
  changed: boolean;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `..YYYY_MM_DD_HH_MM_SS.<n>` in UTC, as Go's MkdirTemp names it (n: a random uint32 in decimal). */
export function timestampedDirName(nowMs: number, draw: number): string {
  const t = new Date(nowMs);
  const stamp = `${pad(t.getUTCFullYear(), 4)}_${pad(t.getUTCMonth() + 1)}_${pad(t.getUTCDate())}_${pad(t.getUTCHours())}_${pad(t.getUTCMinutes())}_${pad(t.getUTCSeconds())}`;
  return `..${stamp}.${Math.floor(draw * 0x1_0000_0000)}`;
}

function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

function ioError(targetDir: string, err: unknown): KubeletError {
  if (err instanceof KubeletError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new KubeletError('KLT_ERR_HOST_IO', `atomic write to ${targetDir} failed: ${message}`, { cause: err, retryable: true });
}

/** Validated, cleaned payload paths; a path that is both a file and another file's directory is refused. */
function cleanPayload(payload: Payload): Map<string, PayloadFile> {
  const clean = new Map<string, PayloadFile>();
  for (const [key, file] of payload) {
    const path = checkedPayloadPath(key);
    clean.set(path, file.path === path ? file : { ...file, path });
  }
  for (const path of clean.keys()) {
    if (!path.includes('/')) continue;
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (clean.has(dir)) throw new KubeletError('KLT_ERR_POD_SPEC_INVALID', `invalid payload: ${dir} is both a file and a directory`);
    }
  }
  return clean;
}

/** The timestamped directory `..data` names, or undefined (no `..data`, or a link this writer did not make). */
async function currentDataDir(fs: FsCalls, targetDir: string): Promise<string | undefined> {
  try {
    const name = await fs.readlink(join(targetDir, dataDirName));
    return timestampedNamePattern.test(name) ? name : undefined;
  } catch (err) {
    if (errnoOf(err) === 'ENOENT' || errnoOf(err) === 'EINVAL') return undefined;
    throw err;
  }
}

/** Every path under dir, relative to it (directories included). */
async function walk(fs: FsCalls, dir: string): Promise<string[]> {
  const out: string[] = [];
  const visit = async (rel: string) => {
    for (const entry of await fs.readdirEntries(rel === '' ? dir : join(dir, rel))) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      out.push(child);
      if (entry.isDirectory()) await visit(child);
    }
  };
  await visit('');
  return out;
}

/** Go's pathsToRemove: what the old data holds that neither a new file nor a new file's directory is. */
async function pathsToRemove(fs: FsCalls, payload: Map<string, PayloadFile>, oldDataDir: string): Promise<Set<string>> {
  const wanted = new Set<string>();
  for (const path of payload.keys()) {
    wanted.add(path);
    if (!path.includes('/')) continue;
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) wanted.add(parts.slice(0, i).join('/'));
  }
  let present: string[];
  try {
    present = await walk(fs, oldDataDir);
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return new Set();
    throw err;
  }
  return new Set(present.filter((p) => !wanted.has(p)));
}

/** Whether the old data holds every file with the same bytes and the mode it would be given now (the files read side by side). */
async function holdsPayload(fs: FsCalls, payload: Map<string, PayloadFile>, oldDataDir: string, modes: Map<string, number>, concurrency: number): Promise<boolean> {
  const same = await allBounded([...payload], concurrency, async ([path, file]) => {
    const full = join(oldDataDir, path);
    try {
      const st = await fs.lstat(full);
      if (!st.isFile() || (st.mode & 0o7777) !== modes.get(path)) return false;
      return file.content.equals(await fs.readFile(full));
    } catch (err) {
      if (errnoOf(err) === 'ENOENT' || errnoOf(err) === 'ENOTDIR') return false;
      throw err;
    }
  });
  return same.every(Boolean);
}

async function makeDataDir(fs: FsCalls, targetDir: string, clock: Pick<Clock, 'now'>, random: Random): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const name = timestampedDirName(clock.now(), random.next());
    try {
      await fs.mkdir(join(targetDir, name), { mode: dataDirectoryMode });
      return name;
    } catch (err) {
      if (errnoOf(err) !== 'EEXIST' || attempt >= 100) throw err;
    }
  }
}

/**
 * The payload's files in the new data directory, every entry at its final mode (chmod after the
 * write, so the umask does not matter) and, with an fsGroup or a file's fsUser, its owners. The
 * directories are made first, parents before children; then the files side by side.
 */
async function writeDataDir(
  fs: FsCalls, dir: string, payload: Map<string, PayloadFile>, entries: readonly VolumeEntryMode[], opts: { fsGroup?: number; concurrency: number },
): Promise<void> {
  const gid = opts.fsGroup ?? -1;
  const finish = async (full: string, uid: number, mode: number) => {
    if (uid !== -1 || gid !== -1) await fs.chown(full, uid, gid);
    await fs.chmod(full, mode);
  };
  for (const entry of entries.filter((e) => e.kind === 'directory')) {
    const full = entry.path === '.' ? dir : join(dir, entry.path);
    if (entry.path !== '.') await fs.mkdir(full, { mode: dataDirectoryMode });
    await finish(full, -1, entry.mode);
  }
  await allBounded(entries.filter((e) => e.kind === 'file'), opts.concurrency, async (entry) => {
    const file = payload.get(entry.path);
    if (file === undefined) return;
    const full = join(dir, entry.path);
    await fs.writeFile(full, file.content, { mode: entry.mode & 0o777, flag: 'wx' });
    await finish(full, file.fsUser ?? -1, entry.mode);
  });
}

/** SetVolumeOwnership on the volume directory itself: its group, and g+rx (or rwx) and setgid added. */
async function ownTargetDir(fs: FsCalls, targetDir: string, fsGroup: number, readOnly: boolean): Promise<void> {
  const st = await fs.stat(targetDir);
  await fs.chown(targetDir, -1, fsGroup);
  await fs.chmod(targetDir, fsGroupMode(st.mode & 0o7777, 'directory', readOnly));
}

/**
 * Go's createUserVisibleFiles: `name → ..data/name` for each top-level name that has no link yet.
 * The link is made outright: a name that exists already (a link, or anything else Go would also
 * leave alone) answers EEXIST.
 */
async function linkTopLevelNames(fs: FsCalls, targetDir: string, payload: Map<string, PayloadFile>, fsGroup: number | undefined, concurrency: number): Promise<void> {
  const names = new Set([...payload.keys()].map((p) => p.split('/')[0] ?? p));
  await allBounded([...names], concurrency, async (name) => {
    const visible = join(targetDir, name);
    try {
      await fs.symlink(`${dataDirName}/${name}`, visible);
    } catch (err) {
      if (errnoOf(err) === 'EEXIST') return;
      throw err;
    }
    if (fsGroup !== undefined) await fs.lchown(visible, -1, fsGroup);
  });
}

const ignoringMissing = (err: unknown) => {
  if (errnoOf(err) !== 'ENOENT') throw err;
};

/**
 * A data directory and everything in it, a missing one included. The entries of one directory go
 * `concurrency` at a time and its subdirectories one after the other, so the calls under way stay
 * within `concurrency` however deep or wide the tree (Node's recursive rm starts a call for every
 * entry at once). A link is removed, never followed.
 */
async function removeDataDir(fs: FsCalls, dir: string, concurrency: number): Promise<void> {
  const entries = await fs.readdirEntries(dir).catch((err: unknown) => (ignoringMissing(err), []));
  await allBounded(entries.filter((e) => !e.isDirectory()), concurrency, (e) => fs.unlink(join(dir, e.name)).catch(ignoringMissing));
  for (const sub of entries.filter((e) => e.isDirectory())) await removeDataDir(fs, join(dir, sub.name), concurrency);
  await fs.rmdir(dir).catch(ignoringMissing);
}

/** Timestamped directories `..data` does not name: the one it named before, or left by a write that failed or crashed half-way. */
async function removeOrphanDataDirs(fs: FsCalls, targetDir: string, keep: string, concurrency: number): Promise<void> {
  const orphans = (await fs.readdir(targetDir)).filter((name) => name !== keep && timestampedNamePattern.test(name));
  for (const name of orphans) await removeDataDir(fs, join(targetDir, name), concurrency);
}

const writesInFlight = new Map<string, Promise<unknown>>();

/**
 * Makes targetDir (which must exist) hold exactly `payload`, atomically for readers. Resolves
 * `{ changed: false }` when `..data` already held it (the links are still made sure of). Throws
 * KubeletError: KLT_ERR_POD_SPEC_INVALID for a payload path Go refuses, KLT_ERR_HOST_IO (retryable)
 * for a file system failure, after which the previous content is still in place.
 */
export function writePayloadAtomically(targetDir: string, payload: Payload, options: AtomicWriteOptions = {}): Promise<AtomicWriteResult> {
  const previous = writesInFlight.get(targetDir) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(() => write(targetDir, payload, options));
  const tail = run.catch(() => undefined);
  writesInFlight.set(targetDir, tail);
  void tail.then(() => {
    if (writesInFlight.get(targetDir) === tail) writesInFlight.delete(targetDir);
  });
  return run;
}

async function write(targetDir: string, payload: Payload, options: AtomicWriteOptions): Promise<AtomicWriteResult> {
  // Step 1: the payload is valid before anything is touched.
  const clean = cleanPayload(payload);
  await turnIfLarge(clean.size);
  const owner = { fsGroup: options.fsGroup, readOnly: options.readOnly ?? true };
  const entries = volumeEntryModes(clean, owner);
  const modes = new Map(entries.filter((e) => e.kind === 'file').map((e) => [e.path, e.mode]));
  // Every call of this write, whatever its step, takes one of its slots.
  const concurrency = options.concurrency ?? defaultWriteConcurrency;
  const fs = limitedCalls(options.calls ?? threadPoolCalls, callSlots(concurrency));

  try {
    // Step 2: what `..data` holds now (read beside the target's own check), what of it the payload
    // no longer has, and whether it differs.
    const [targetStat, oldDataDir] = await Promise.all([fs.stat(targetDir), currentDataDir(fs, targetDir)]);
    if (!targetStat.isDirectory()) throw new KubeletError('KLT_ERR_HOST_IO', `atomic write to ${targetDir} failed: not a directory`);
    let stale = new Set<string>();
    if (oldDataDir !== undefined) {
      const oldPath = join(targetDir, oldDataDir);
      stale = await pathsToRemove(fs, clean, oldPath);
      if (stale.size === 0 && (await holdsPayload(fs, clean, oldPath, modes, concurrency))) {
        // Nothing to write, but a link may be missing (Go #121472).
        await linkTopLevelNames(fs, targetDir, clean, owner.fsGroup, concurrency);
        return { changed: false };
      }
    }

    // Step 3: the new data, in full, in a directory no reader can reach yet.
    const newDataDir = await makeDataDir(fs, targetDir, options.clock ?? systemClock, options.random ?? mathRandom);
    const newDataPath = join(targetDir, newDataDir);
    const tmpLink = join(targetDir, newDataDirName);
    try {
      await writeDataDir(fs, newDataPath, clean, entries, { ...owner, concurrency });
      if (owner.fsGroup !== undefined) await ownTargetDir(fs, targetDir, owner.fsGroup, owner.readOnly);

      // Step 4: one rename switches `..data` to it. A `..data_tmp` left by a crashed write is removed first.
      await fs.symlink(newDataDir, tmpLink).catch(async (err: unknown) => {
        if (errnoOf(err) !== 'EEXIST') throw err;
        await fs.rm(tmpLink, { force: true });
        await fs.symlink(newDataDir, tmpLink);
      });
      if (owner.fsGroup !== undefined) await fs.lchown(tmpLink, -1, owner.fsGroup);
      await fs.rename(tmpLink, join(targetDir, dataDirName));
    } catch (err) {
      await fs.rm(tmpLink, { force: true }).catch(() => undefined);
      await removeDataDir(fs, newDataPath, concurrency).catch(() => undefined);
      throw err;
    }

    // Step 5: links for new top-level names; links for names gone (only top-level ones are links).
    // Step 6, beside it: the old data, and any a failed write left behind.
    const goneLinks = [...stale].filter((path) => !path.includes('/'));
    await allOrFirstError([
      linkTopLevelNames(fs, targetDir, clean, owner.fsGroup, concurrency),
      allBounded(goneLinks, concurrency, (path) => fs.unlink(join(targetDir, path)).catch(ignoringMissing)),
      removeOrphanDataDirs(fs, targetDir, newDataDir, concurrency),
    ]);
    return { changed: true };
  } catch (err) {
    throw ioError(targetDir, err);
  }
}
