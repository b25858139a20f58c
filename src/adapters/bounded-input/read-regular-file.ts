/**
 * Reads a file we do not trust as UTF-8 text, refusing before reading anything what is not a regular
 * file (a FIFO would block forever, /dev/zero or /dev/urandom would never end) or is over a size limit.
 *
 * The file is opened with O_NONBLOCK, so opening a FIFO with no writer returns at once instead of
 * waiting for one, and then fstat'ed: the checks apply to the file actually opened, not to whatever
 * the path named a moment earlier. A file that grows past the limit while being read is refused too.
 * With `noFollow`, a symbolic link in the last component is refused too (O_NOFOLLOW), not read through.
 */
import { constants, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';

export class UnreadableFileError extends Error {}

export interface ReadRegularFileOptions {
  /** Refuse a symbolic link in the path's last component instead of reading where it points. */
  noFollow?: boolean;
}

export async function readRegularFile(path: string, maxBytes: number, options: ReadRegularFileOptions = {}): Promise<{ text: string; info: Stats }> {
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | (options.noFollow ? constants.O_NOFOLLOW : 0);
  const handle = await open(path, flags).catch((err: unknown) => {
    // ELOOP is what open(2) answers for a link under O_NOFOLLOW.
    if (options.noFollow && (err as NodeJS.ErrnoException).code === 'ELOOP') throw new UnreadableFileError('is a symbolic link, not followed');
    throw err;
  });
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new UnreadableFileError(`is ${kindOf(info)}, not a regular file`);
    if (info.size > maxBytes) throw new UnreadableFileError(`is ${info.size} bytes, over the ${maxBytes} byte limit`);
    const buffer = Buffer.alloc(info.size + 1); // one byte more, to notice a file that grew
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length === buffer.length) throw new UnreadableFileError(`grew while being read, over ${info.size} bytes`);
    }
    return { text: buffer.toString('utf8', 0, length), info };
  } finally {
    await handle.close();
  }
}

/** What a non-regular file is, in words for an error message. */
export function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  if (info.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}
