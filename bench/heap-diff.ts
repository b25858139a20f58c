/**
 * `node dist/bench/heap-diff.js A.heapsnapshot B.heapsnapshot`: what B holds more of than A, by
 * kind of object (a constructor's name, strings, arrays, compiled code…), counted and in bytes of
 * the objects themselves, largest growth first. Two snapshots of one daemon some bursts apart
 * (bench/heap-snapshot.ts) show what it keeps per pod that it should have let go.
 */
import { readFileSync } from 'node:fs';

interface HeapSnapshotFile {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Objects by kind: [count, self bytes], and the heap's total self bytes. */
export function heapByKind(snapshot: HeapSnapshotFile): { kinds: Map<string, [number, number]>; totalBytes: number } {
  const { node_fields: fields, node_types: [types] } = snapshot.snapshot.meta;
  const [typeAt, nameAt, sizeAt] = [fields.indexOf('type'), fields.indexOf('name'), fields.indexOf('self_size')];
  const kinds = new Map<string, [number, number]>();
  let totalBytes = 0;
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    const type = types[snapshot.nodes[i + typeAt]!]!;
    const bytes = snapshot.nodes[i + sizeAt]!;
    const kind = type.endsWith('string') ? '(string)' : type === 'code' ? '(code)' : `${type}:${snapshot.strings[snapshot.nodes[i + nameAt]!]!.slice(0, 60)}`;
    const entry = kinds.get(kind) ?? [0, 0];
    entry[0] += 1;
    entry[1] += bytes;
    kinds.set(kind, entry);
    totalBytes += bytes;
  }
  return { kinds, totalBytes };
}

function main(): void {
  const [a, b] = process.argv.slice(2);
  if (!a || !b) {
    process.stderr.write('usage: heap-diff A.heapsnapshot B.heapsnapshot\n');
    process.exit(2);
  }
  const [before, after] = [a, b].map((f) => heapByKind(JSON.parse(readFileSync(f, 'utf8')) as HeapSnapshotFile));
  process.stdout.write(`self bytes: ${(before!.totalBytes / 1e6).toFixed(2)} MB -> ${(after!.totalBytes / 1e6).toFixed(2)} MB\n`);
  const rows = [...new Set([...before!.kinds.keys(), ...after!.kinds.keys()])].map((kind) => {
    const [n0, b0] = before!.kinds.get(kind) ?? [0, 0];
    const [n1, b1] = after!.kinds.get(kind) ?? [0, 0];
    return { kind, count: n1 - n0, bytes: b1 - b0, n1 };
  }).sort((x, y) => y.bytes - x.bytes);
  process.stdout.write('  count   bytes   (now)  kind\n');
  for (const r of rows.slice(0, 25)) process.stdout.write(`${String(r.count).padStart(7)} ${String(r.bytes).padStart(9)} ${String(r.n1).padStart(7)}  ${r.kind}\n`);
}

if (process.argv[1]?.endsWith('heap-diff.js')) main();
