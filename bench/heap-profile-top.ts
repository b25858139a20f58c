/**
 * Where a sampling heap profile's bytes were allocated (`node dist/bench/heap-profile-top.js
 * FILE.heapprofile [--top N]`, from bench/idlealloc.ts): each sample goes to the first frame of our
 * sources above it (through the bundle's source maps), and to its leaf; bytes and shares of the
 * whole. Read a profile before its bundle is rebuilt, or its frames are mapped through another build.
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

interface CallFrame { functionName: string; url: string; lineNumber: number; columnNumber: number }
interface HeapNode { callFrame: CallFrame; selfSize: number; children: HeapNode[] }

const maps = new Map<string, SourceMap | null>();
function mapFor(url: string): SourceMap | null {
  if (!maps.has(url)) {
    try {
      maps.set(url, new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]));
    } catch {
      maps.set(url, null);
    }
  }
  return maps.get(url)!;
}

/** `name file:line` of a frame, through the bundle's map; whether it is our source. */
function named(f: CallFrame): { what: string; ours: boolean } {
  const name = f.functionName || '(anonymous)';
  if (!f.url.startsWith('file:') || !f.url.includes('/dist/')) return { what: `${name} ${f.url.replace(/^file:\/\/.*?(node_modules\/)/, '$1')}`, ours: false };
  const e = mapFor(f.url)?.findEntry(f.lineNumber, f.columnNumber) as { originalSource?: string; originalLine?: number } | undefined;
  const src = (e?.originalSource ?? f.url).replace(/^.*?(node_modules\/|src\/|bench\/)/, '$1');
  return { what: `${name} ${src}:${(e?.originalLine ?? 0) + 1}`, ours: src.startsWith('src/') };
}

function main(): void {
  const args = process.argv.slice(2);
  const topAt = args.indexOf('--top');
  const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 30;
  const { head } = JSON.parse(readFileSync(args[0]!, 'utf8')) as { head: HeapNode };
  const byOurs = new Map<string, number>();
  const byLeaf = new Map<string, number>();
  const byPath = new Map<string, number>();
  let total = 0;
  const walk = (n: HeapNode, stack: string[], firstOurs: string | undefined) => {
    const { what, ours } = named(n.callFrame);
    const mine = ours ? what : firstOurs;
    const path = ours ? [...stack, what].slice(-4) : stack;
    if (n.selfSize > 0) {
      total += n.selfSize;
      byLeaf.set(what, (byLeaf.get(what) ?? 0) + n.selfSize);
      const key = mine ?? '(none of ours)';
      byOurs.set(key, (byOurs.get(key) ?? 0) + n.selfSize);
      const p = path.join(' < ');
      byPath.set(p, (byPath.get(p) ?? 0) + n.selfSize);
    }
    // The innermost frame of ours wins: a child that is ours replaces it.
    for (const c of n.children) walk(c, path, mine);
  };
  walk(head, [], undefined);
  const print = (title: string, m: Map<string, number>) => {
    process.stdout.write(`\n${title}:\n`);
    for (const [k, b] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${(b / 1e6).toFixed(2).padStart(8)} MB ${((100 * b) / total).toFixed(1).padStart(5)} %  ${k}\n`);
  };
  process.stdout.write(`allocated ${(total / 1e6).toFixed(2)} MB\n`);
  print('by the innermost frame of ours', byOurs);
  print('by leaf', byLeaf);
  print('by our last frames (innermost last)', byPath);
}

main();
