/**
 * A module script in a fresh Node process, which must end by itself: for properties of a whole
 * process, such as "leaves no handle behind that would keep the process alive", which counting the
 * test worker's own handles cannot show (its test servers hold handles of their own).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** A built module's URL, for the script's `import()` (the child runs tsc's output, not the sources). */
export function builtModule(path: string): string {
  return JSON.stringify(pathToFileURL(resolve(path)).href);
}

/**
 * How long a child may live before it counts as held open: a fresh Node loading built modules took
 * over 10 s on a loaded 2-core machine, so generous, and below the suite's test timeout.
 */
const CHILD_DEADLINE_MS = 45_000;

/** Runs `script` and waits for its process to end; one still alive after `ms` is killed and the test fails. */
export async function runScriptInChild(script: string, ms = CHILD_DEADLINE_MS): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  // A deadline, not a wait: the child normally exits first and clears it; one still alive is the failure.
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  if (signal === 'SIGKILL') throw new Error(`the child process was still alive ${ms} ms on (printed: ${JSON.stringify(stdout)})`);
  return { code, stdout };
}
