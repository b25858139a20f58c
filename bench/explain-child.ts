/**
 * One explain, measured in a process of its own (explain.ts): `streamed` runs the command as a
 * person does; `whole` reads the log into memory and explains it from there, as the command did.
 * Prints its wall time and the process's peak RSS as JSON.
 */
import { readJournal } from '../src/adapters/journal-file/reader.js';
import { runExplainCommand } from '../src/bin/commands/explain.js';
import { explainPod, isPodNotFound } from '../src/domain/explain/explain.js';

export type ExplainMode = 'streamed' | 'whole';

export interface ExplainRun {
  ms: number;
  maxRssKiB: number;
}

async function main(mode: ExplainMode, path: string, query: string): Promise<ExplainRun> {
  const start = performance.now();
  if (mode === 'streamed') {
    const code = await runExplainCommand([path, query], { stdout: () => {}, stderr: (s) => process.stderr.write(s) });
    if (code !== 0) throw new Error(`explain exited ${code}`);
  } else if (isPodNotFound(explainPod(readJournal(path).records, query))) {
    throw new Error(`no pod ${query} in ${path}`);
  }
  return { ms: performance.now() - start, maxRssKiB: process.resourceUsage().maxRSS };
}

const [mode, path, query] = process.argv.slice(2);
main(mode as ExplainMode, path!, query!).then(
  (run) => process.stdout.write(JSON.stringify(run)),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
