/**
 * A process's resident memory by where the C library and V8 put it, from /proc/PID/smaps: what of a
 * burst's growth is V8's heap and what is the allocator's. Heuristics from how glibc lays memory out:
 * the main thread's malloc heap is the `[heap]` mapping (brk); every other thread that calls malloc
 * gets an arena of its own, reserved as 64 MiB at a 64 MiB boundary, its used part read-write and the
 * rest inaccessible. What is left anonymous is V8's pages (heap, code), thread stacks, and blocks big
 * enough for malloc to map them alone (ArrayBuffers' stores, say).
 */
import { readFileSync } from 'node:fs';

const ARENA = 64 * 1024 * 1024;

export interface SmapsClasses {
  /** File-backed pages: node's text, shared libraries, mapped files. */
  file: number;
  /** The main thread's malloc heap (`[heap]`). */
  brk: number;
  /** Other threads' malloc arenas: V8's compiler and collector threads, libuv's pool. */
  arenas: number;
  /** Every other anonymous page: V8's heap and code, stacks, malloc's own mappings of big blocks. */
  otherAnon: number;
}

interface Mapping { start: bigint; end: bigint; perms: string; path: string; rssKiB: number }

const HEADER = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ \S+\s*(.*)$/;

export function parseSmaps(text: string): Mapping[] {
  const out: Mapping[] = [];
  for (const line of text.split('\n')) {
    const header = HEADER.exec(line);
    if (header) {
      out.push({ start: BigInt(`0x${header[1]}`), end: BigInt(`0x${header[2]}`), perms: header[3]!, path: header[4]!.trim(), rssKiB: 0 });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && out.length > 0) out[out.length - 1]!.rssKiB = Number(rss[1]);
  }
  return out;
}

/** An arena's used part: at a 64 MiB boundary, followed by its inaccessible rest up to the next one (or all of it used). */
function isArena(m: Mapping, next: Mapping | undefined): boolean {
  if (m.path !== '' || m.perms !== 'rw-p' || m.start % BigInt(ARENA) !== 0n) return false;
  const reservedEnd = m.start + BigInt(ARENA);
  if (m.end === reservedEnd) return true;
  return next !== undefined && next.start === m.end && next.perms === '---p' && next.path === '' && next.end === reservedEnd;
}

export function smapsClasses(mappings: readonly Mapping[]): SmapsClasses {
  const kib = { file: 0, brk: 0, arenas: 0, otherAnon: 0 };
  mappings.forEach((m, i) => {
    if (m.path.startsWith('/')) kib.file += m.rssKiB;
    else if (m.path === '[heap]') kib.brk += m.rssKiB;
    else if (isArena(m, mappings[i + 1])) kib.arenas += m.rssKiB;
    else kib.otherAnon += m.rssKiB;
  });
  const mib = (n: number) => Math.round((n / 1024) * 10) / 10;
  return { file: mib(kib.file), brk: mib(kib.brk), arenas: mib(kib.arenas), otherAnon: mib(kib.otherAnon) };
}

/** The classes of a live process; undefined once it is gone. */
export function processSmapsClasses(pid: number): SmapsClasses | undefined {
  try {
    return smapsClasses(parseSmaps(readFileSync(`/proc/${pid}/smaps`, 'utf8')));
  } catch {
    return undefined;
  }
}
