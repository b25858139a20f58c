/**
 * `mkdir -p` (Go's os.MkdirAll) for every directory the kubelet makes: --root-dir and its children,
 * --cert-dir, the event log's directory, pod log directories.
 *
 * Why not `fs.mkdir(path, { recursive: true })`: on Node 20 it never returns for a path under /proc
 * whose parent is missing (`/proc/nope/x` spins at 100 % CPU, deaf to SIGTERM, issue 14): mkdir on
 * procfs answers ENOENT for the parent and Node's recursive walk keeps retrying. Here the walk is
 * ours and bounded by the path's depth: find the deepest ancestor that exists, then create each
 * missing level once; any error is thrown as is (its message names the path).
 *
 * Synchronous on purpose: a handful of mkdir calls at start-up or before a pod's sandbox, as Go does;
 * `makeDirectories` is the promise-returning form for callers typed that way.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { KubeletError } from '../../domain/errors.js';

const codeOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | undefined)?.code;

export function makeDirectoriesSync(path: string, mode?: number): void {
  const missing: string[] = [];
  for (let current = resolve(path); ; current = dirname(current)) {
    try {
      const info = statSync(current);
      if (!info.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${current}'`), { code: 'ENOTDIR', path: current });
      break;
    } catch (err) {
      if (codeOf(err) !== 'ENOENT' || dirname(current) === current) throw err;
      missing.push(current);
    }
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir, mode === undefined ? {} : { mode });
    } catch (err) {
      // Made by someone else meanwhile: fine, as long as it is a directory.
      if (codeOf(err) !== 'EEXIST' || !statSync(dir).isDirectory()) throw err;
    }
  }
}

export async function makeDirectories(path: string, mode?: number): Promise<void> {
  makeDirectoriesSync(path, mode);
}

/**
 * makeDirectoriesSync for the kubelet's own directories (root dir, event log, pod logs): a failure
 * is the host's, KLT_ERR_HOST_IO naming the directory, not an internal error. The system error
 * stays as the cause (its code, its path).
 */
export function makeKubeletDirectorySync(path: string, mode?: number): void {
  try {
    makeDirectoriesSync(path, mode);
  } catch (err) {
    throw new KubeletError('KLT_ERR_HOST_IO', `cannot create directory ${path}: ${(err as Error).message}`, { cause: err });
  }
}

/** makeKubeletDirectorySync for callers typed with promises. */
export async function makeKubeletDirectory(path: string, mode?: number): Promise<void> {
  makeKubeletDirectorySync(path, mode);
}
