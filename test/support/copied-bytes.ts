/**
 * How many bytes a piece of code copies between buffers, counted at Buffer.concat and
 * Buffer.prototype.copy (the two ways this project joins bytes). A reader that re-joins what it
 * holds on every read shows up here as a count far above the size of its input, whatever the
 * machine's speed: a robust stand-in for "the CPU it costs is linear".
 */
import { vi } from 'vitest';

export async function copiedBytes(run: () => unknown): Promise<number> {
  let copied = 0;
  const concat = Buffer.concat.bind(Buffer);
  const copy = Buffer.prototype.copy;
  const concatSpy = vi.spyOn(Buffer, 'concat').mockImplementation((list, totalLength) => {
    const out = concat(list, totalLength);
    copied += out.length;
    return out;
  });
  const copySpy = vi.spyOn(Buffer.prototype as Buffer, 'copy').mockImplementation(function (this: Buffer, ...args: Parameters<Buffer['copy']>) {
    const n = copy.apply(this, args);
    copied += n;
    return n;
  });
  try {
    await run();
  } finally {
    concatSpy.mockRestore();
    copySpy.mockRestore();
  }
  return copied;
}
