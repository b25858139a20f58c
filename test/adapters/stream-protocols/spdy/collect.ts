/** Reads a stream to its end (FIN) and gives back everything it carried. */
import type { Readable } from 'node:stream';

export function collect(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
    stream.once('close', () => reject(new Error('stream closed before its end')));
  });
}

/** Resolves when `check` holds, polling; fails after `ms`. */
export async function eventually(what: string, check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
