/**
 * The file system calls the atomic writer makes, in two flavours of one shape.
 *
 * - `threadPoolCalls` (node:fs/promises): each call runs on libuv's thread pool. Use them on a disk,
 *   where a metadata call can wait milliseconds for the file system's journal and must not stop the
 *   event loop.
 * - `inlineCalls` (the synchronous calls behind a promise): each call runs at once on the caller's
 *   thread. Use them on a tmpfs, where a call is a few microseconds of memory work, far less than a
 *   trip through the pool (docs/FINDINGS.md). Through the pool each call would also wait for a turn
 *   of a busy event loop, as in a burst of pods. A run of inline calls lets the event loop turn once
 *   it has held it for a few milliseconds: a Secret of very many keys would otherwise stop the
 *   kubelet for as long as its writes take.
 * - `limitedCalls` puts either behind shared slots (call-slots.ts): the node's budget of descriptors
 *   and thread pool calls for pod-driven work.
 */
import type { Dirent, MakeDirectoryOptions, RmOptions, Stats, WriteFileOptions } from 'node:fs';
import {
  chmodSync, chownSync, lchownSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmdirSync, rmSync, statSync, symlinkSync,
  unlinkSync, writeFileSync,
} from 'node:fs';
import { chmod, chown, lchown, lstat, mkdir, readdir, readFile, readlink, rename, rm, rmdir, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import type { CallSlots } from '../fs/call-slots.js';

export interface FsCalls {
  chmod(path: string, mode: number): Promise<void>;
  chown(path: string, uid: number, gid: number): Promise<void>;
  lchown(path: string, uid: number, gid: number): Promise<void>;
  lstat(path: string): Promise<Stats>;
  stat(path: string): Promise<Stats>;
  mkdir(path: string, options: MakeDirectoryOptions & { recursive?: false }): Promise<void>;
  readdir(path: string): Promise<string[]>;
  readdirEntries(path: string): Promise<Dirent[]>;
  readFile(path: string): Promise<Buffer>;
  readlink(path: string): Promise<string>;
  rename(from: string, to: string): Promise<void>;
  rm(path: string, options: RmOptions): Promise<void>;
  rmdir(path: string): Promise<void>;
  symlink(target: string, path: string): Promise<void>;
  unlink(path: string): Promise<void>;
  writeFile(path: string, content: Buffer, options: WriteFileOptions): Promise<void>;
}

export const threadPoolCalls: FsCalls = {
  chmod, chown, lchown, lstat, stat, rename, rm, unlink, readlink,
  rmdir: (path) => rmdir(path),
  mkdir: async (path, options) => void (await mkdir(path, options)),
  readdir: (path) => readdir(path),
  readdirEntries: (path) => readdir(path, { withFileTypes: true }),
  readFile: (path) => readFile(path),
  symlink: (target, path) => symlink(target, path),
  writeFile: (path, content, options) => writeFile(path, content, options),
};

/** How long a run of inline calls may hold the event loop before it lets the loop turn. */
const inlineSliceMs = 5;
let sliceStartedAt: number | undefined;
/** Calls that found this turn's slice used up, first come first served in the next turns. */
const deferred: (() => void)[] = [];
let drainScheduled = false;

/** Whether this turn of the event loop may still run an inline call (the first call of a turn starts its slice). */
function sliceLeft(): boolean {
  const now = performance.now();
  if (sliceStartedAt === undefined) {
    sliceStartedAt = now;
    setImmediate(() => (sliceStartedAt = undefined));
  }
  return now - sliceStartedAt <= inlineSliceMs;
}

/** Runs deferred calls for one slice of a later turn, and leaves the rest for the turn after. */
function drainDeferred(): void {
  drainScheduled = false;
  while (deferred.length > 0 && sliceLeft()) deferred.shift()!();
  scheduleDrain();
}

function scheduleDrain(): void {
  if (drainScheduled || deferred.length === 0) return;
  drainScheduled = true;
  setImmediate(drainDeferred);
}

/** `call` at once, or in a later turn of the event loop when this turn's inline calls have run for inlineSliceMs. */
function inline<T>(call: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const run = () => {
      try {
        resolve(call());
      } catch (err) {
        reject(err);
      }
    };
    if (deferred.length === 0 && sliceLeft()) run();
    else {
      deferred.push(run);
      scheduleDrain();
    }
  });
}

export const inlineCalls: FsCalls = {
  chmod: (path, mode) => inline(() => chmodSync(path, mode)),
  chown: (path, uid, gid) => inline(() => chownSync(path, uid, gid)),
  lchown: (path, uid, gid) => inline(() => lchownSync(path, uid, gid)),
  lstat: (path) => inline(() => lstatSync(path)),
  stat: (path) => inline(() => statSync(path)),
  mkdir: (path, options) => inline(() => void mkdirSync(path, options)),
  readdir: (path) => inline(() => readdirSync(path)),
  readdirEntries: (path) => inline(() => readdirSync(path, { withFileTypes: true })),
  readFile: (path) => inline(() => readFileSync(path)),
  readlink: (path) => inline(() => readlinkSync(path)),
  rename: (from, to) => inline(() => renameSync(from, to)),
  rm: (path, options) => inline(() => rmSync(path, options)),
  rmdir: (path) => inline(() => rmdirSync(path)),
  symlink: (target, path) => inline(() => symlinkSync(target, path)),
  unlink: (path) => inline(() => unlinkSync(path)),
  writeFile: (path, content, options) => inline(() => writeFileSync(path, content, options)),
};

/** `calls`, each one run in one of `slots` (a call holds its files open only while it holds its slot). */
export function limitedCalls(calls: FsCalls, slots: CallSlots): FsCalls {
  const limited: Partial<Record<keyof FsCalls, unknown>> = {};
  for (const name of Object.keys(calls) as (keyof FsCalls)[]) {
    const call = calls[name] as (...args: unknown[]) => Promise<unknown>;
    limited[name] = (...args: unknown[]) => slots.run(() => call(...args));
  }
  return limited as FsCalls;
}
