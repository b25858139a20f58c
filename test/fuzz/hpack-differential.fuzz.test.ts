/**
 * Differential HPACK fuzz: generated header lists are encoded by an independent encoder — nghttp2,
 * through a real node:http2 server answering with them — and decoded by our HpackDecoder
 * (src/adapters/h2/hpack.ts), field by field. One connection per run carries several answers, so
 * nghttp2's dynamic table carries over between them and, in the small table sizes we announce,
 * evicts; nghttp2 Huffman-codes every string Huffman shortens, and sends the fields marked
 * sensitive as never-indexed literals. The seed is the fuzz suite's (FUZZ_SEED repeats a run).
 */
import { once } from 'node:events';
import { createServer, sensitiveHeaders, type Http2Server, type OutgoingHttpHeaders } from 'node:http2';
import { connect, type AddressInfo, type Socket } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HpackDecoder } from '../../src/adapters/h2/hpack.js';
import { FLAG, FRAME, frameBytes, headerBlock } from '../support/malicious-h2-server.js';
import { FUZZ_SEED } from './hostile-arbitraries.js';
import { FrameSplitter } from '../support/h2-frame-splitter.js';

const RUNS = 40;
const CLIENT_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const SETTINGS_HEADER_TABLE_SIZE = 0x1;

/** Names from HPACK's static table that node lets a server send: their index is a name reference. */
const STATIC_NAMES = ['accept-ranges', 'age', 'cache-control', 'content-encoding', 'content-language', 'content-type', 'etag', 'expires', 'last-modified', 'link', 'location', 'server', 'vary', 'via', 'www-authenticate'];
const TOKEN_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789-_.!#$%&\'*+^`|~';

const name = fc.oneof(
  fc.constantFrom(...STATIC_NAMES),
  // A letter after "x-": never a name node refuses, and never one an object would reorder (integer-like keys).
  fc.array(fc.constantFrom(...TOKEN_CHARS), { minLength: 1, maxLength: 20 }).map((cs) => `x-${cs.join('')}`),
);
const printable = (min: number, max: number) => fc.integer({ min, max }).map((c) => String.fromCharCode(c));
const value = fc.oneof(
  // What Huffman shortens: lower-case text.
  fc.array(printable(0x61, 0x7a), { maxLength: 300 }).map((cs) => cs.join('')),
  // What it lengthens: any visible ASCII, tabs and spaces inside, and bytes past ASCII (obs-text, latin1 on both sides).
  fc.array(fc.oneof(printable(0x20, 0x7e), fc.constant('\t'), printable(0x80, 0xff)), { maxLength: 120 }).map((cs) => cs.join('').trim()),
  fc.constantFrom('', '0', 'gzip', 'application/json', 'no-cache'),
);
const answer = fc.record({
  fields: fc.uniqueArray(fc.tuple(name, value), { maxLength: 14, selector: ([n]) => n }),
  sensitive: fc.array(fc.boolean(), { minLength: 14, maxLength: 14 }),
});
const connectionCase = fc.record({
  tableSize: fc.constantFrom(0, 64, 256, 1024, 4096),
  answers: fc.array(answer, { minLength: 1, maxLength: 8 }),
});
type Answer = { fields: Array<[string, string]>; sensitive: boolean[] };

/** A client that reads nghttp2's header blocks raw, each request answered with the next queued list. */
class RawClient {
  private readonly frames = new FrameSplitter();
  private partial: Buffer[] | null = null;
  private readonly blocks: Buffer[] = [];
  private wake: () => void = () => {};
  private nextStream = 1;
  private closed = false;

  constructor(private readonly socket: Socket, tableSize: number) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    const setting = Buffer.alloc(6);
    setting.writeUInt16BE(SETTINGS_HEADER_TABLE_SIZE, 0);
    setting.writeUInt32BE(tableSize, 2);
    socket.write(Buffer.concat([CLIENT_PREFACE, frameBytes(FRAME.SETTINGS, 0, 0, setting)]));
  }

  /** Sends a request and hands back the answer's header block. */
  async request(): Promise<Buffer> {
    const id = this.nextStream;
    this.nextStream += 2;
    const fields: Array<[string, string]> = [[':method', 'GET'], [':scheme', 'http'], [':path', `/${id}`], [':authority', 'localhost']];
    this.socket.write(frameBytes(FRAME.HEADERS, FLAG.END_STREAM | FLAG.END_HEADERS, id, headerBlock(fields)));
    while (this.blocks.length === 0) {
      if (this.closed) throw new Error(`nghttp2 closed the connection before answering request ${id}`);
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    return this.blocks.shift()!;
  }

  private receive(chunk: Buffer): void {
    for (const { type, flags, payload } of this.frames.push(chunk)) {
      if (type === FRAME.SETTINGS && !(flags & FLAG.ACK)) this.socket.write(frameBytes(FRAME.SETTINGS, FLAG.ACK, 0));
      // nghttp2 sends neither padding nor priority on an answer's HEADERS.
      if (type === FRAME.HEADERS) this.partial = [payload];
      else if (type === FRAME.CONTINUATION) this.partial?.push(payload);
      if ((type === FRAME.HEADERS || type === FRAME.CONTINUATION) && flags & FLAG.END_HEADERS && this.partial) {
        this.blocks.push(Buffer.concat(this.partial));
        this.partial = null;
      }
    }
    this.wake();
  }
}

describe(`differential HPACK fuzz against nghttp2, seed ${FUZZ_SEED}`, () => {
  let server: Http2Server;
  let port: number;
  /** The header lists the server answers with, in the order requests come. */
  const queued: Answer[] = [];

  beforeAll(async () => {
    server = createServer();
    server.on('stream', (stream) => {
      const { fields, sensitive } = queued.shift()!;
      const headers: OutgoingHttpHeaders = {
        ':status': 200, ...Object.fromEntries(fields), [sensitiveHeaders]: fields.filter((_, i) => sensitive[i]).map(([n]) => n),
      };
      stream.respond(headers, { endStream: true, sendDate: false } as Parameters<typeof stream.respond>[1]);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((done) => server.close(() => done()));
  });

  it(`decodes what nghttp2 encodes, ${RUNS} connections of up to 8 answers each, as it was sent`, async () => {
    await fc.assert(
      fc.asyncProperty(connectionCase, async ({ tableSize, answers }) => {
        const socket = connect(port, '127.0.0.1');
        await once(socket, 'connect');
        try {
          const client = new RawClient(socket, tableSize);
          const decoder = new HpackDecoder(tableSize);
          for (const sent of answers) {
            queued.push(sent);
            const decoded = decoder.decode(await client.request());
            expect(decoded).toEqual([[':status', '200'], ...sent.fields]);
            const tableBytes = decoder.tableEntries().reduce((sum, [n, v]) => sum + n.length + v.length + 32, 0);
            expect(tableBytes).toBeLessThanOrEqual(tableSize);
          }
        } finally {
          queued.length = 0;
          socket.destroy();
        }
      }),
      // Shrinking a connection of eight answers takes long on a loaded machine: the first failure is reported as found.
      { seed: FUZZ_SEED, numRuns: RUNS, endOnFailure: true },
    );
  });
});
