/**
 * Starting a container through the detached shim of its shims directory (shim.ts), starting that shim
 * when none runs, and finding the shim's script to run.
 *
 * The shim is a Node script (shim.ts). From the built package it is the sibling `shim.js` tsc emitted.
 * When kubelet-ts runs from its TypeScript sources (vitest, development), there is no .js to run, so the
 * shim and the few modules it imports are transpiled once into a scratch directory with the
 * `typescript` dev dependency. Either way one source is the truth.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeletError } from '../../../domain/errors.js';
import { readJsonFileSync, writeFileAtomic } from './atomic-file.js';
import { identifyProcess, isSameProcessAlive, type ProcessIdentity } from './proc-stat.js';
import {
  LAUNCH_FILE, SHIM_FILE, SHIM_LOG_FILE, SHIM_READY, SHIM_SOCKET, STARTED_FILE, type LaunchSpec, type ShimRecord, type ShimReport,
} from './shim-protocol.js';

export interface ShimCommand {
  execPath: string;
  scriptPath: string;
}

/** The modules the shim imports (itself included), all in this folder: a dev run transpiles them side by side. */
const SHIM_MODULES = ['shim', 'shim-container', 'shim-protocol', 'shim-attach', 'shim-namespace', 'cri-log-writer', 'atomic-file', 'proc-stat', 'exit-code'];

/** How long a shim may take to listen, and to report that a container started. */
const SHIM_REPORT_TIMEOUT_MS = 10_000;

export async function resolveShimCommand(scratchDir: string, moduleUrl: string = import.meta.url): Promise<ShimCommand> {
  const here = dirname(fileURLToPath(moduleUrl));
  const built = join(here, 'shim.js');
  if (moduleUrl.endsWith('.js') && existsSync(built)) return { execPath: process.execPath, scriptPath: built };
  return { execPath: process.execPath, scriptPath: await transpileShim(here, join(scratchDir, 'shim-dev')) };
}

async function transpileShim(sourceDir: string, outDir: string): Promise<string> {
  let ts: typeof import('typescript');
  try {
    ts = (await import('typescript')).default;
  } catch (err) {
    throw new KubeletError('KLT_ERR_INTERNAL', 'embedded runtime: no built shim.js and no typescript to build one', { cause: err });
  }
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, 'package.json'), '{"type":"module"}\n');
  for (const name of SHIM_MODULES) {
    const source = await readFile(join(sourceDir, `${name}.ts`), 'utf8');
    const output = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      fileName: `${name}.ts`,
    });
    await writeFileAtomic(join(outDir, `${name}.js`), output.outputText);
  }
  return join(outDir, 'shim.js');
}

export interface LaunchedContainer {
  container: ProcessIdentity;
  shim: ProcessIdentity;
  /** Epoch nanoseconds, decimal: when the container process was spawned. */
  startedAt: string;
}

/** Per shims directory, the search for its shim (or the start of one) under way: one at a time, so two launches never start two shims. */
const finding = new Map<string, Promise<unknown>>();

function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = finding.get(key) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(work);
  finding.set(key, next);
  void next.catch(() => undefined).finally(() => {
    if (finding.get(key) === next) finding.delete(key);
  });
  return next;
}

/**
 * Writes launch.json in `shimDir` and asks the shim of its parent directory (the shims directory) to
 * start the container, starting that shim first when none runs there. Rejects with KLT_ERR_CRI_FAILED
 * when the container process could not be started (the shim's own words).
 */
export async function launchThroughShim(shim: ShimCommand, shimDir: string, spec: LaunchSpec): Promise<LaunchedContainer> {
  await mkdir(shimDir, { recursive: true });
  await writeFileAtomic(join(shimDir, LAUNCH_FILE), JSON.stringify(spec));
  const shimsDir = dirname(shimDir);
  let asked: { line: string; shim: ProcessIdentity };
  try {
    asked = await askShim(shim, shimsDir, basename(shimDir));
  } catch (err) {
    const tail = await shimLogTail(shimsDir);
    throw new KubeletError('KLT_ERR_CRI_FAILED', `failed to start container: ${(err as Error).message}${tail ? `: ${tail}` : ''}`, { cause: err });
  }
  let parsed: ShimReport;
  try {
    parsed = JSON.parse(asked.line) as ShimReport;
  } catch (err) {
    throw new KubeletError('KLT_ERR_CRI_FAILED', `failed to start container: unreadable shim report ${JSON.stringify(asked.line)}`, { cause: err });
  }
  if (!parsed.ok) throw new KubeletError('KLT_ERR_CRI_FAILED', parsed.error);
  return {
    container: { pid: parsed.pid, startTime: parsed.startTime ?? '' },
    shim: asked.shim,
    startedAt: parsed.startedAt,
  };
}

/**
 * The shim's answer for container `name`. A shim that has just run out of containers stops listening:
 * a connection it never took ends without a byte, and (the container not having started) the
 * question goes to a new shim.
 */
async function askShim(shim: ShimCommand, shimsDir: string, name: string): Promise<{ line: string; shim: ProcessIdentity }> {
  for (let attempt = 1; ; attempt++) {
    const found = await oneAtATime(shimsDir, () => connectToShim(shim, shimsDir));
    const answer = await readAnswer(found.socket, name);
    if (answer.kind === 'line') return { line: answer.line, shim: found.identity };
    if (answer.kind === 'silent' && attempt === 1 && !existsSync(join(shimsDir, name, STARTED_FILE))) continue;
    throw new Error(`shim ended without reporting; see ${join(shimsDir, SHIM_LOG_FILE)}`);
  }
}

async function connectToShim(shim: ShimCommand, shimsDir: string): Promise<{ socket: Socket; identity: ProcessIdentity }> {
  const running = runningShim(shimsDir);
  if (running) {
    const socket = await connectSocket(running).catch(() => null);
    if (socket) return { socket, identity: running };
  }
  const started = await startShim(shim, shimsDir);
  return { socket: await connectSocket(started), identity: started };
}

/** The shim shim.json names, if it still runs. */
function runningShim(shimsDir: string): ProcessIdentity | null {
  const read = readJsonFileSync<ShimRecord>(join(shimsDir, SHIM_FILE));
  if (read.kind !== 'ok' || !read.value.startTime) return null;
  const identity = { pid: read.value.pid, startTime: read.value.startTime };
  return isSameProcessAlive(identity) ? identity : null;
}

/** Through /proc/<shim>/cwd/: short whatever the state directory's length (a unix socket path has 107 bytes). */
function connectSocket(shim: ProcessIdentity): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const socket = connect({ path: `/proc/${shim.pid}/cwd/${SHIM_SOCKET}` });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Starts the shim of `shimsDir`, detached and unref'd, and waits until it listens. */
async function startShim(shim: ShimCommand, shimsDir: string): Promise<ProcessIdentity> {
  await mkdir(shimsDir, { recursive: true });
  const shimLog = openSync(join(shimsDir, SHIM_LOG_FILE), 'a', 0o600);
  let child;
  try {
    // The directory again as an argument, so `ps` (and the benchmarks) can tell which shim serves what.
    child = spawn(shim.execPath, [shim.scriptPath, shimsDir], {
      cwd: shimsDir,
      // The shim needs nothing from our environment, and must not inherit NODE_OPTIONS or secrets.
      env: {},
      detached: true,
      stdio: ['ignore', 'pipe', shimLog],
    });
  } finally {
    closeSync(shimLog);
  }
  const started = child;
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let buffered = '';
      const timer = setTimeout(() => fail(new Error('shim did not start within 10s')), SHIM_REPORT_TIMEOUT_MS);
      const fail = (err: Error): void => {
        clearTimeout(timer);
        reject(err);
      };
      started.once('error', fail);
      started.stdout!.on('end', () => fail(new Error(`shim ended before it listened; see ${join(shimsDir, SHIM_LOG_FILE)}`)));
      started.stdout!.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        const newline = buffered.indexOf('\n');
        if (newline < 0) return;
        clearTimeout(timer);
        resolve(buffered.slice(0, newline));
      });
    });
    if (line !== SHIM_READY) throw new Error(`shim said ${JSON.stringify(line)} instead of ${SHIM_READY}`);
  } finally {
    // From here on the shim lives on its own: stop reading it and let our event loop forget it.
    started.stdout?.destroy();
    started.unref();
  }
  const identity = identifyProcess(started.pid!);
  if (!identity) throw new Error(`shim ${started.pid} is gone after it said it listened; see ${join(shimsDir, SHIM_LOG_FILE)}`);
  return identity;
}

type Answer = { kind: 'line'; line: string } | { kind: 'silent' } | { kind: 'cut' };

/** Asks for container `name` and reads the one line that answers; `silent`: the connection ended without a byte. */
function readAnswer(socket: Socket, name: string): Promise<Answer> {
  return new Promise<Answer>((resolve) => {
    let buffered = '';
    let heard = false;
    const settle = (answer: Answer): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => settle({ kind: 'cut' }), SHIM_REPORT_TIMEOUT_MS);
    socket.on('error', () => settle(heard ? { kind: 'cut' } : { kind: 'silent' }));
    socket.on('end', () => settle(heard ? { kind: 'cut' } : { kind: 'silent' }));
    socket.on('data', (chunk: Buffer) => {
      heard = true;
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline >= 0) settle({ kind: 'line', line: buffered.slice(0, newline) });
    });
    socket.write(`${name}\n`);
  });
}

/** The last lines of the shim's own log, to put the reason for a failed start (or a lost exit) into the answer. */
export async function shimLogTail(shimsDir: string, maxChars = 600): Promise<string> {
  try {
    const text = (await readFile(join(shimsDir, SHIM_LOG_FILE), 'utf8')).trim();
    return text.length > maxChars ? `…${text.slice(-maxChars)}` : text;
  } catch {
    return '';
  }
}
