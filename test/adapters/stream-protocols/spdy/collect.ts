/** Small helpers for the SPDY tests: reading a stream to its end, waiting for a condition, feeding input in pieces. */
import type { Readable } from 'node:stream';
import { vi } from 'vitest';

/** Reads a stream to its end (FIN) and gives back everything it carried. */
export function collect(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
    stream.once('close', () => reject(new Error('stream closed before its end')));
  });
}

/** Resolves when `check` holds (vi.waitFor's polling); fails after `ms`, naming `what`. */
export async function eventually(what: string, check: () => boolean, ms = 5000): Promise<void> {
  await vi.waitFor(() => {
    if (!check()) throw new Error(`timed out waiting for ${what}`);
  }, { timeout: ms, interval: 10 });
}

/**
 * Feeds `whole` to `push` in pieces of the given lengths (cycling through them), as reads off a
 * socket would come, and gathers what each push returns.
 */
export function pushInPieces<T, W extends { length: number; slice(start: number, end: number): W }>(
  whole: W, lengths: readonly number[], push: (piece: W) => T[],
): T[] {
  const out: T[] = [];
  for (let i = 0, at = 0; at < whole.length; i++) {
    const n = lengths[i % lengths.length]!;
    out.push(...push(whole.slice(at, at + n)));
    at += n;
  }
  return out;
}
