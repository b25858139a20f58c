/**
 * `mkdir -p` (Go's os.MkdirAll) for every directory the kubelet makes: --root-dir and its children,
 * --cert-dir, the event log's directory, pod log directories.
 *
 * Why not `fs.mkdir(path, { recursive: true })`: on Node 20 it never returns for a path under /proc
 * whose parent is missing (`/proc/nope/x` spins on a core, deaf to SIGTERM): mkdir on procfs
 * answers ENOENT for the parent and Node's recursive walk keeps retrying. Here the walk is
 * ours and bounded by the path's depth: find the deepest ancestor that exists, then create each
 * missing level once; any error is thrown as is (its message names the path).
 *
 * mkdir's mode goes through the umask, as Go's MkdirAll's does. The kubelet's own directories
 * (makeKubeletDirectory) get their mode whatever the umask: each level made is chmod'ed to it, since
 * they hold its sockets and every pod's volumes. A directory that was already there keeps its mode,
 * as in Go. The others (a pod's, a container's) skip the chmod: they are made on the hot path of
 * every pod start, and an explicit mode is already safe from a permissive umask.
 *
 * The walk is written once, as a generator of file system steps, and run two ways: synchronously for
 * the start-up callers that are synchronous (the journal's sink, the event log), and through
 * node:fs/promises for the rest. A pod's log directory is made on the hot path of a start wave:
 * made synchronously, a wave's mkdirs would block the event loop and lengthen the kubelet's own
 * share of every pod start (docs/FINDINGS.md). Its stats are made on the caller's thread all the same:
 * a stat of a directory in the kernel's cache costs a few microseconds there, a trip through the
 * thread pool ten times more, and every pod start walks up to the pod's directory, which exists.
 */
import { chmodSync, mkdirSync, statSync, type Stats } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { KubeletError } from '../../domain/errors.js';

const codeOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | undefined)?.code;

/** One step of the walk; the runner answers a stat with its Stats (or throws its error into the walk). */
type Step = { op: 'stat'; path: string } | { op: 'mkdir'; path: string; mode?: number } | { op: 'chmod'; path: string; mode: number };

function* walk(path: string, mode: number | undefined, exactMode: boolean): Generator<Step, void, Stats | undefined> {
  const missing: string[] = [];
  for (let current = resolve(path); ; current = dirname(current)) {
    try {
      const info = (yield { op: 'stat', path: current })!;
      if (!info.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${current}'`), { code: 'ENOTDIR', path: current });
      break;
    } catch (err) {
      if (codeOf(err) !== 'ENOENT' || dirname(current) === current) throw err;
      missing.push(current);
    }
  }
  for (const dir of missing.reverse()) {
    try {
      yield mode === undefined ? { op: 'mkdir', path: dir } : { op: 'mkdir', path: dir, mode };
    } catch (err) {
      // Made by someone else meanwhile: fine, as long as it is a directory (its mode is theirs).
      if (codeOf(err) !== 'EEXIST' || !(yield { op: 'stat', path: dir })!.isDirectory()) throw err;
      continue;
    }
    if (exactMode && mode !== undefined) yield { op: 'chmod', path: dir, mode };
  }
}

/** What a runner hands back to the walk: a stat's Stats (undefined after a mkdir), or the error to throw into it. */
type Answer = { value: Stats | undefined } | { error: unknown };
type Resumed = IteratorResult<Step, void>;
const resume = (steps: Generator<Step, void, Stats | undefined>, answer: Answer): Resumed =>
  ('error' in answer ? steps.throw(answer.error) : steps.next(answer.value));
const mkdirOptions = (step: Step & { op: 'mkdir' }) => (step.mode === undefined ? {} : { mode: step.mode });

function stepSync(step: Step): Answer {
  try {
    if (step.op === 'stat') return { value: statSync(step.path) };
    if (step.op === 'chmod') return { value: void chmodSync(step.path, step.mode) };
    return { value: void mkdirSync(step.path, mkdirOptions(step)) };
  } catch (error) {
    return { error };
  }
}

async function stepAsync(step: Step): Promise<Answer> {
  if (step.op === 'stat') return stepSync(step);
  try {
    if (step.op === 'chmod') return { value: void (await chmod(step.path, step.mode)) };
    return { value: void (await mkdir(step.path, mkdirOptions(step))) };
  } catch (error) {
    return { error };
  }
}

/** `exactMode`: each level made is chmod'ed to `mode`, whatever the umask (the kubelet's own directories). */
export function makeDirectoriesSync(path: string, mode?: number, exactMode = false): void {
  const steps = walk(path, mode, exactMode);
  for (let next = steps.next(); !next.done;) next = resume(steps, stepSync(next.value));
}

/** makeDirectoriesSync with its mkdirs through node:fs/promises: the event loop runs on while a directory is made. */
export async function makeDirectories(path: string, mode?: number, exactMode = false): Promise<void> {
  const steps = walk(path, mode, exactMode);
  for (let next = steps.next(); !next.done;) next = resume(steps, await stepAsync(next.value));
}

const hostError = (path: string, err: unknown) =>
  new KubeletError('KLT_ERR_HOST_IO', `cannot create directory ${path}: ${(err as Error).message}`, { cause: err });

/**
 * makeDirectoriesSync for the kubelet's own directories (root dir, event log, pod logs): each level
 * made gets `mode` whatever the umask, and a failure is the host's, KLT_ERR_HOST_IO naming the
 * directory, not an internal error. The system error stays as the cause (its code, its path).
 */
export function makeKubeletDirectorySync(path: string, mode?: number): void {
  try {
    makeDirectoriesSync(path, mode, true);
  } catch (err) {
    throw hostError(path, err);
  }
}

/** makeKubeletDirectorySync through node:fs/promises. */
export async function makeKubeletDirectory(path: string, mode?: number): Promise<void> {
  try {
    await makeDirectories(path, mode, true);
  } catch (err) {
    throw hostError(path, err);
  }
}
