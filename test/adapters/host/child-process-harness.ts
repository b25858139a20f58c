/**
 * Runs real adapter code in a second Node process: transpiles the named src/ files (type-only
 * imports vanish) into a temp tree with the same layout, so the child imports exactly the code
 * under test, without a TypeScript loader.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

const repoRoot = resolve(import.meta.dirname, '../../..');

export async function transpileInto(outDir: string, srcFiles: string[]): Promise<void> {
  await writeFile(join(outDir, 'package.json'), '{"type":"module"}\n');
  for (const file of srcFiles) {
    const source = await readFile(join(repoRoot, file), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      fileName: file,
    });
    const target = join(outDir, file.replace(/\.ts$/, '.js'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, outputText);
  }
}

/** A child whose stdout lines can be awaited. */
export class LineChild {
  readonly lines: string[] = [];
  private waiters: { match: (l: string) => boolean; resolve: (l: string) => void }[] = [];
  readonly exited: Promise<number | null>;

  constructor(readonly proc: ChildProcess) {
    let buf = '';
    proc.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        this.lines.push(line);
        this.waiters = this.waiters.filter((w) => (w.match(line) ? (w.resolve(line), false) : true));
      }
    });
    this.exited = new Promise((res) => proc.on('exit', (code) => res(code)));
  }

  static start(command: string, args: string[], cwd?: string): LineChild {
    return new LineChild(spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] }));
  }

  waitFor(prefix: string): Promise<string> {
    const seen = this.lines.find((l) => l.startsWith(prefix));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((res) => this.waiters.push({ match: (l) => l.startsWith(prefix), resolve: res }));
  }

  kill(): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL');
  }
}
