/**
 * Where all of a daemon's CPU went, every thread's and the kernel's, from `perf` samples: what a
 * `--cpu-prof` profile cannot show, since it samples the main thread's JavaScript alone.
 *
 *   perf record -k mono -F 999 -g -p PID -o perf.data       # while the bench runs (root)
 *   perf script -i perf.data --time FROM,TO -F tid,ip,sym,dso > burst.txt
 *   node dist/scripts/perf-categories.js burst.txt PID
 *
 * FROM and TO are seconds on the monotonic clock (a bench's "burst of pid P: A to B us", divided by a
 * million). Each sample goes to the main thread (tid = PID) or another one, and to a kind of work by
 * its stack: V8's collector or compilers anywhere on it, else its leaf (the kernel, the C library,
 * JavaScript and V8's builtins, node's and V8's own C++). Node must run with --perf-basic-prof for
 * JavaScript's frames to have names; without it they count as "other".
 */
import { readFileSync } from 'node:fs';

const GC = /Scavenger|MarkCompact|ConcurrentMarking|Sweeper|CollectGarbage|Evacuat|IncrementalMarking|MarkingVisitor|Heap::Perform|MarkingBarrier|ArrayBufferSweeper|MemoryAllocator|ScavengeJob/;
const COMPILE = /Runtime_CompileLazy|Compiler::|compiler::|maglev|baseline::|BytecodeGenerator|Parser|OptimizingCompileDispatcher|CompileOptimized|InstallBaselineCode|Deoptimiz|ScriptCompiler|BaselineBatchCompiler|Scanner|interpreter::/;

/** A sample's kind of work from its frames, leaf first. */
export function kindOf(frames: readonly string[]): string {
  const stack = frames.join('\n');
  if (GC.test(stack)) return 'V8 collector';
  if (COMPILE.test(stack)) return 'V8 compilers';
  const leaf = frames[0] ?? '';
  if (leaf.includes('[kernel.kallsyms]')) return 'kernel';
  if (leaf.includes('libc.so')) return 'C library';
  if (leaf.includes('Builtins_') || /perf-\d+\.map/.test(leaf)) return 'JavaScript and builtins';
  if (leaf.includes('/node)')) return 'node and V8 C++';
  return 'other';
}

/** Samples by "thread kind" from `perf script -F tid,ip,sym,dso` output: a header line with the tid, then frames. */
export function perfCategories(text: string, mainTid: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const block of text.split('\n\n')) {
    const lines = block.split('\n').filter((l) => l.trim() !== '');
    if (lines.length === 0) continue;
    const thread = lines[0]!.trim().split(/\s+/)[0] === mainTid ? 'main' : 'other threads';
    const key = `${thread}: ${kindOf(lines.slice(1))}`;
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

function main(): void {
  const [file, mainTid] = process.argv.slice(2);
  if (!file || !mainTid) {
    process.stderr.write('usage: perf-categories PERF_SCRIPT_OUTPUT MAIN_TID\n');
    process.exit(2);
  }
  const counts = perfCategories(readFileSync(file, 'utf8'), mainTid);
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  process.stdout.write(`${total} samples\n`);
  for (const [key, n] of [...counts].sort((a, b) => b[1] - a[1])) {
    process.stdout.write(`${key.padEnd(40)} ${String(n).padStart(6)} ${((100 * n) / total).toFixed(1).padStart(5)} %\n`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();
