/**
 * Starting a container through its detached shim, and finding the shim's script to run.
 *
 * The shim is a Node script (shim.ts). From the built package it is the sibling `shim.js` tsc emitted.
 * When kubelet-ts runs from its TypeScript sources (vitest, development), there is no .js to run, so the
 * shim and the few modules it imports are transpiled once into a scratch directory with the
 * `typescript` dev dependency. Either way one source is the truth.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeletError } from '../../domain/errors.js';
import { writeFileAtomic } from './atomic-file.js';
import { identifyProcess, type ProcessIdentity } from './proc-stat.js';
import { LAUNCH_FILE, SHIM_LOG_FILE, type LaunchSpec, type ShimReport } from './shim-protocol.js';

export interface ShimCommand {
  execPath: string;
  scriptPath: string;
}

/** The modules the shim imports (itself included): everything it needs must be in this list. */
const SHIM_MODULES = ['shim', 'shim-protocol', 'shim-attach', 'shim-namespace', 'cri-log-writer', 'atomic-file', 'proc-stat', 'exit-code'];

/** How long a shim may take to report that the container started. */
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

/**
 * Writes launch.json, spawns the shim detached and unref'd, and waits for its report. Rejects with
 * KLT_ERR_CRI_FAILED when the container process could not be started (the shim's own words).
 */
export async function launchThroughShim(shim: ShimCommand, shimDir: string, spec: LaunchSpec): Promise<LaunchedContainer> {
  await mkdir(shimDir, { recursive: true });
  await writeFileAtomic(join(shimDir, LAUNCH_FILE), JSON.stringify(spec));
  const shimLog = openSync(join(shimDir, SHIM_LOG_FILE), 'a', 0o600);
  let child;
  try {
    child = spawn(shim.execPath, [shim.scriptPath, shimDir], {
      cwd: shimDir,
      // The shim needs nothing from our environment, and must not inherit NODE_OPTIONS or secrets.
      env: {},
      detached: true,
      stdio: ['ignore', 'pipe', shimLog],
    });
  } finally {
    closeSync(shimLog);
  }
  const shimProcess = child;
  const reportLine = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => fail(new Error('shim did not report within 10s')), SHIM_REPORT_TIMEOUT_MS);
    const fail = (err: Error): void => {
      clearTimeout(timer);
      reject(err);
    };
    shimProcess.once('error', fail);
    // Not 'exit': a shim that reports an error exits at once, possibly before its line is read.
    shimProcess.stdout!.on('end', () => fail(new Error(`shim ended without reporting; see ${join(shimDir, SHIM_LOG_FILE)}`)));
    shimProcess.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolve(buffered.slice(0, newline));
      }
    });
  }).catch(async (err: Error) => {
    const tail = await shimLogTail(shimDir);
    throw new KubeletError('KLT_ERR_CRI_FAILED', `failed to start container: ${err.message}${tail ? `: ${tail}` : ''}`, { cause: err });
  }).finally(() => {
    // From here on the shim lives on its own: stop reading it and let our event loop forget it.
    shimProcess.stdout?.destroy();
    shimProcess.unref();
  });

  let parsed: ShimReport;
  try {
    parsed = JSON.parse(reportLine) as ShimReport;
  } catch (err) {
    throw new KubeletError('KLT_ERR_CRI_FAILED', `failed to start container: unreadable shim report ${JSON.stringify(reportLine)}`, { cause: err });
  }
  if (!parsed.ok) throw new KubeletError('KLT_ERR_CRI_FAILED', parsed.error);
  const shimIdentity = identifyProcess(shimProcess.pid!) ?? { pid: shimProcess.pid!, startTime: '' };
  return {
    container: { pid: parsed.pid, startTime: parsed.startTime ?? '' },
    shim: shimIdentity,
    startedAt: parsed.startedAt,
  };
}

/** The last lines of the shim's own log, to put the reason for a failed start into the error. */
async function shimLogTail(shimDir: string, maxChars = 600): Promise<string> {
  try {
    const text = (await readFile(join(shimDir, SHIM_LOG_FILE), 'utf8')).trim();
    return text.length > maxChars ? `…${text.slice(-maxChars)}` : text;
  } catch {
    return '';
  }
}
