/**
 * The two zlib contexts of a SPDY session: every header block one side sends is compressed by one
 * deflate stream that lives as long as the session (primed with the SPDY/3 dictionary) and ends each
 * block with a sync flush, so the peer's one inflate stream can decode it without waiting for more.
 * A block can therefore only be decoded after every earlier one, in order: each context here runs
 * its blocks one at a time, in the order they were handed in.
 *
 * Node's zlib works off the main thread and answers later, hence the promises. Output is drained as
 * it comes (a large block would otherwise stall the stream), and a block that inflates to more than
 * the session's limit is refused, so a few compressed bytes cannot make us hold megabytes.
 */
import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';
import { SpdyFrameError } from './frames.js';
import { SPDY3_HEADER_DICTIONARY } from './header-dictionary.js';

type ZlibStream = Deflate | Inflate;

function flushThrough(stream: ZlibStream, input: Buffer, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      stream.off('readable', drain);
      reject(error);
    };
    const drain = () => {
      for (let chunk = stream.read() as Buffer | null; chunk !== null; chunk = stream.read() as Buffer | null) {
        size += chunk.length;
        if (size > limit) return fail(new SpdyFrameError(`header block over ${limit} bytes`));
        chunks.push(chunk);
      }
    };
    stream.on('readable', drain);
    stream.once('error', fail);
    stream.write(input);
    stream.flush(constants.Z_SYNC_FLUSH, () => {
      drain();
      stream.off('readable', drain);
      stream.off('error', fail);
      if (!failed) resolve(Buffer.concat(chunks, size));
    });
  });
}

class SerialZlibContext {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly stream: ZlibStream;

  constructor(stream: ZlibStream, private readonly limit: number) {
    this.stream = stream;
  }

  run(input: Buffer): Promise<Buffer> {
    const result = this.tail.then(() => flushThrough(this.stream, input, this.limit));
    this.tail = result.catch(() => undefined);
    return result;
  }

  close(): void {
    this.stream.destroy();
  }
}

export class HeaderCompressor {
  private readonly context = new SerialZlibContext(createDeflate({ dictionary: SPDY3_HEADER_DICTIONARY, level: constants.Z_BEST_COMPRESSION }), Number.MAX_SAFE_INTEGER);

  compress(block: Buffer): Promise<Buffer> {
    return this.context.run(block);
  }

  close(): void {
    this.context.close();
  }
}

export class HeaderDecompressor {
  private readonly context: SerialZlibContext;

  constructor(maxHeaderBlockBytes: number) {
    this.context = new SerialZlibContext(createInflate({ dictionary: SPDY3_HEADER_DICTIONARY }), maxHeaderBlockBytes);
  }

  /** Rejects with SpdyFrameError when the block does not inflate (the session cannot go on then). */
  decompress(compressed: Buffer): Promise<Buffer> {
    return this.context.run(compressed).catch((error: unknown) => {
      throw error instanceof SpdyFrameError ? error : new SpdyFrameError(`header block does not inflate: ${(error as Error).message}`);
    });
  }

  close(): void {
    this.context.close();
  }
}
