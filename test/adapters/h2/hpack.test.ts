/**
 * HPACK: RFC 7541's worked examples (Appendix C) decoded byte for byte, the dynamic table after
 * each, malformed blocks refused, our encoder's blocks read back, and both ends against nghttp2 —
 * node:http2's server reads our requests and we read its Huffman-coded, table-indexed answers.
 */
import { once } from 'node:events';
import { createServer, sensitiveHeaders, type Http2Server, type OutgoingHttpHeaders } from 'node:http2';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeHeaderBlock, HpackDecoder, HpackError } from '../../../src/adapters/h2/hpack.js';
import { STATIC_INDEX_BY_NAME, STATIC_TABLE, STATIC_TABLE_LENGTH } from '../../../src/adapters/h2/hpack-static-table.js';
import { decodeHuffman, EOS, HUFFMAN_CODES, HUFFMAN_LENGTHS, HuffmanError } from '../../../src/adapters/h2/huffman.js';
import { FrameSplitter } from '../../support/h2-frame-splitter.js';

/** Bytes from the RFC's hex dumps, spaces and line breaks ignored. */
const hex = (dump: string): Buffer => Buffer.from(dump.replace(/\s+/g, ''), 'hex');

type Fields = Array<[string, string]>;

/** A Huffman coder from the decoder's own code table, to make inputs the RFC has no example of. */
function huffmanEncode(text: string): Buffer {
  const bytes: number[] = [];
  let pending = 0;
  let pendingBits = 0;
  for (let i = 0; i < text.length; i++) {
    const symbol = text.charCodeAt(i);
    const length = HUFFMAN_LENGTHS[symbol]!;
    pending = pending * 2 ** length + HUFFMAN_CODES[symbol]!;
    pendingBits += length;
    while (pendingBits >= 8) {
      pendingBits -= 8;
      bytes.push(Math.floor(pending / 2 ** pendingBits) & 0xff);
      pending %= 2 ** pendingBits;
    }
  }
  if (pendingBits > 0) bytes.push(((pending << (8 - pendingBits)) | (0xff >> pendingBits)) & 0xff);
  return Buffer.from(bytes);
}

const huffman = (coded: Buffer): string => decodeHuffman(coded, 0, coded.length);

describe('the static table', () => {
  it('has RFC 7541 Appendix A\'s 61 entries, and each name\'s first index', () => {
    expect(STATIC_TABLE).toHaveLength(STATIC_TABLE_LENGTH);
    expect(STATIC_TABLE[0]).toEqual([':authority', '']);
    expect(STATIC_TABLE[7]).toEqual([':status', '200']);
    expect(STATIC_TABLE[15]).toEqual(['accept-encoding', 'gzip, deflate']);
    expect(STATIC_TABLE[60]).toEqual(['www-authenticate', '']);
    expect(STATIC_INDEX_BY_NAME.get(':status')).toBe(8);
    expect(STATIC_INDEX_BY_NAME.get('content-type')).toBe(31);
    expect(STATIC_INDEX_BY_NAME.size).toBe(52);
  });
});

describe('the Huffman code', () => {
  it('is complete: the Kraft sum of its lengths is exactly 1', () => {
    let sum = 0;
    for (const length of HUFFMAN_LENGTHS) sum += 2 ** (30 - length);
    expect(HUFFMAN_LENGTHS).toHaveLength(257);
    expect(sum).toBe(2 ** 30);
  });

  it('rebuilds the codes Appendix B lists', () => {
    const code = (symbol: number) => HUFFMAN_CODES[symbol]!.toString(2).padStart(HUFFMAN_LENGTHS[symbol]!, '0');
    expect(code('0'.charCodeAt(0))).toBe('00000');
    expect(code('a'.charCodeAt(0))).toBe('00011');
    expect(code(' '.charCodeAt(0))).toBe('010100');
    expect(code(':'.charCodeAt(0))).toBe('1011100');
    expect(code('&'.charCodeAt(0))).toBe('11111000');
    expect(code(0)).toBe('1111111111000');
    expect(code(255)).toBe('11111111111111111111101110');
    expect(code(EOS)).toBe('1'.repeat(30));
  });

  it('decodes the strings of Appendix C.4 and C.6', () => {
    expect(huffman(hex('f1e3 c2e5 f23a 6ba0 ab90 f4ff'))).toBe('www.example.com');
    expect(huffman(hex('a8eb 1064 9cbf'))).toBe('no-cache');
    expect(huffman(hex('25a8 49e9 5ba9 7d7f'))).toBe('custom-key');
    expect(huffman(hex('25a8 49e9 5bb8 e8b4 bf'))).toBe('custom-value');
    expect(huffman(hex('6402'))).toBe('302');
    expect(huffman(hex('640e ff'))).toBe('307');
    expect(huffman(hex('aec3 771a 4b'))).toBe('private');
    expect(huffman(hex('d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff'))).toBe('Mon, 21 Oct 2013 20:13:21 GMT');
    expect(huffman(hex('9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3'))).toBe('https://www.example.com');
    expect(huffman(hex('9bd9 ab'))).toBe('gzip');
    expect(huffman(hex(`94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587
      3160 65c0 03ed 4ee5 b106 3d50 07`))).toBe('foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1');
    expect(huffman(Buffer.alloc(0))).toBe('');
  });

  it('decodes every byte value, in a string of all of them', () => {
    const all = Array.from({ length: 256 }, (_, i) => String.fromCharCode(i)).join('');
    expect(huffman(huffmanEncode(all))).toBe(all);
    expect(huffman(huffmanEncode(all.split('').reverse().join('').repeat(3)))).toBe(all.split('').reverse().join('').repeat(3));
  });

  it('refuses padding longer than 7 bits', () => {
    // 'a' (00011) then 11 one-bits: the padding takes a whole byte more than it may.
    expect(() => huffman(hex('1f ff'))).toThrow(/padding is 11 bits long/);
    // A lone byte of ones: 8 bits of padding and no symbol.
    expect(() => huffman(hex('ff'))).toThrow(HuffmanError);
  });

  it('refuses padding that is not the leading bits of EOS', () => {
    // '0' (00000) then 000: the string ends inside another code.
    expect(() => huffman(hex('00'))).toThrow(/not the leading bits of the end-of-string symbol/);
    // 'a' then 101.
    expect(() => huffman(hex('1d'))).toThrow(HuffmanError);
  });

  it('refuses the end-of-string symbol inside a string', () => {
    // EOS's 30 ones, then 'a' and padding: 11111111 11111111 11111111 111111 00011 1111 1.
    expect(() => huffman(hex('ff ff ff fc 7f'))).toThrow(/end-of-string symbol appears inside/);
    // 'a' then EOS then padding.
    expect(() => huffman(hex('1f ff ff ff ff'))).toThrow(/end-of-string symbol appears inside/);
  });
});

describe('HpackDecoder', () => {
  describe('RFC 7541 C.2, one representation each', () => {
    it('C.2.1: a literal field with indexing joins the dynamic table', () => {
      const decoder = new HpackDecoder();
      expect(decoder.decode(hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572'))).toEqual([['custom-key', 'custom-header']]);
      expect(decoder.tableEntries()).toEqual([['custom-key', 'custom-header']]);
      expect(decoder.tableSize).toBe(55);
    });

    it('C.2.2: a literal field without indexing leaves the table alone', () => {
      const decoder = new HpackDecoder();
      expect(decoder.decode(hex('040c 2f73 616d 706c 652f 7061 7468'))).toEqual([[':path', '/sample/path']]);
      expect(decoder.tableEntries()).toEqual([]);
      expect(decoder.tableSize).toBe(0);
    });

    it('C.2.3: a literal field never indexed leaves the table alone', () => {
      const decoder = new HpackDecoder();
      expect(decoder.decode(hex('1008 7061 7373 776f 7264 0673 6563 7265 74'))).toEqual([['password', 'secret']]);
      expect(decoder.tableEntries()).toEqual([]);
    });

    it('C.2.4: an indexed field from the static table', () => {
      const decoder = new HpackDecoder();
      expect(decoder.decode(hex('82'))).toEqual([[':method', 'GET']]);
      expect(decoder.tableEntries()).toEqual([]);
    });
  });

  const firstRequest: Fields = [[':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com']];
  const secondRequest: Fields = [...firstRequest, ['cache-control', 'no-cache']];
  const thirdRequest: Fields = [
    [':method', 'GET'], [':scheme', 'https'], [':path', '/index.html'], [':authority', 'www.example.com'], ['custom-key', 'custom-value'],
  ];
  const requestTables: Fields[] = [
    [[':authority', 'www.example.com']],
    [['cache-control', 'no-cache'], [':authority', 'www.example.com']],
    [['custom-key', 'custom-value'], ['cache-control', 'no-cache'], [':authority', 'www.example.com']],
  ];

  function decodesRequests(blocks: string[]): void {
    const decoder = new HpackDecoder();
    const lists = [firstRequest, secondRequest, thirdRequest];
    const sizes = [57, 110, 164];
    blocks.forEach((block, i) => {
      expect(decoder.decode(hex(block))).toEqual(lists[i]);
      expect(decoder.tableEntries()).toEqual(requestTables[i]);
      expect(decoder.tableSize).toBe(sizes[i]);
    });
  }

  it('C.3: three requests on one connection, raw literals', () => {
    decodesRequests([
      '8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
      '8286 84be 5808 6e6f 2d63 6163 6865',
      '8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65',
    ]);
  });

  it('C.4: the same requests, Huffman-coded', () => {
    decodesRequests([
      '8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff',
      '8286 84be 5886 a8eb 1064 9cbf',
      '8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf',
    ]);
  });

  const date1 = 'Mon, 21 Oct 2013 20:13:21 GMT';
  const date2 = 'Mon, 21 Oct 2013 20:13:22 GMT';
  const cookie = 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1';
  const location = 'https://www.example.com';
  const responses: Fields[] = [
    [[':status', '302'], ['cache-control', 'private'], ['date', date1], ['location', location]],
    [[':status', '307'], ['cache-control', 'private'], ['date', date1], ['location', location]],
    [[':status', '200'], ['cache-control', 'private'], ['date', date2], ['location', location], ['content-encoding', 'gzip'], ['set-cookie', cookie]],
  ];
  const responseTables: Fields[] = [
    [['location', location], ['date', date1], ['cache-control', 'private'], [':status', '302']],
    [[':status', '307'], ['location', location], ['date', date1], ['cache-control', 'private']],
    [['set-cookie', cookie], ['content-encoding', 'gzip'], ['date', date2]],
  ];

  function decodesResponses(blocks: string[]): void {
    const decoder = new HpackDecoder(256);
    const sizes = [222, 222, 215];
    blocks.forEach((block, i) => {
      expect(decoder.decode(hex(block))).toEqual(responses[i]);
      expect(decoder.tableEntries()).toEqual(responseTables[i]);
      expect(decoder.tableSize).toBe(sizes[i]);
    });
  }

  it('C.5: three responses in a 256-byte table, evicting, raw literals', () => {
    decodesResponses([
      `4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133
       2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d`,
      '4803 3330 37c1 c0bf',
      `88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d
       54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049
       5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31`,
    ]);
  });

  it('C.6: the same responses, Huffman-coded', () => {
    decodesResponses([
      `4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6
       2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3`,
      '4883 640e ffc1 c0bf',
      `88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab
       77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f
       9587 3160 65c0 03ed 4ee5 b106 3d50 07`,
    ]);
  });

  it('applies size updates at the start of a block: down evicts, up again is allowed', () => {
    const decoder = new HpackDecoder(256);
    decoder.decode(hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572'));
    expect(decoder.tableSize).toBe(55);
    // Two updates (0, then 256 = 31 + 225 as 3f e1 01), then the field that table held: now gone.
    expect(() => decoder.decode(hex('20 3fe101 be'))).toThrow(/index 62 is beyond the table/);
    expect(decoder.tableEntries()).toEqual([]);
    // An entry larger than the whole table empties it and is not added.
    const small = new HpackDecoder(256);
    small.decode(hex('3f 11')); // size update to 48
    expect(small.decode(hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572'))).toEqual([['custom-key', 'custom-header']]);
    expect(small.tableEntries()).toEqual([]);
  });

  it('refuses a size update beyond the size we announced', () => {
    // 4097 = 31 + 4066: 3f e2 1f.
    expect(() => new HpackDecoder(4096).decode(hex('3f e21f'))).toThrow(/size update to 4097 goes beyond the 4096 announced/);
    expect(() => new HpackDecoder(4096).decode(hex('3f e11f 82'))).not.toThrow();
  });

  it('refuses a size update after a field', () => {
    expect(() => new HpackDecoder().decode(hex('82 20'))).toThrow(/size update comes after a header field/);
  });

  it('refuses an index beyond the table, and index 0', () => {
    expect(() => new HpackDecoder().decode(hex('be'))).toThrow(/index 62 is beyond the table \(61 static and 0 dynamic entries\)/);
    expect(() => new HpackDecoder().decode(hex('7e 0161'))).toThrow(/index 62 is beyond/);
    expect(() => new HpackDecoder().decode(hex('80'))).toThrow(/index 0/);
  });

  it('refuses truncated blocks', () => {
    const whole = hex('8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d');
    for (let cut = 4; cut < whole.length; cut++) {
      expect(() => new HpackDecoder().decode(whole.subarray(0, cut)), `cut at ${cut}`).toThrow(HpackError);
    }
    expect(() => new HpackDecoder().decode(hex('41 0f77 7777'))).toThrow(/a string of 15 bytes runs 12 bytes past the end/);
    expect(() => new HpackDecoder().decode(hex('ff'))).toThrow(/ends inside an integer/);
    expect(() => new HpackDecoder().decode(hex('40'))).toThrow(/ends where a string should be/);
  });

  it('refuses integers that run on too long or too large', () => {
    expect(() => new HpackDecoder().decode(hex('ff 80 80 80 80 00'))).toThrow(/more than 4 continuation bytes/);
    expect(() => new HpackDecoder().decode(hex('ff ff ff ff 7f'))).toThrow(/integer goes beyond/);
  });

  it('refuses a malformed Huffman string as an HpackError', () => {
    expect(() => new HpackDecoder().decode(hex('41 81 ff'))).toThrow(HpackError);
    expect(() => new HpackDecoder().decode(hex('41 81 ff'))).toThrow(/Huffman-coded string is malformed: the padding is 8 bits/);
  });

  it('reads bytes as latin1', () => {
    expect(new HpackDecoder().decode(hex('00 01 78 02 e9ff'))).toEqual([['x', '\u00e9\u00ff']]);
  });

  it('stops building a header list at its limits, counting 32 bytes a field, yet decodes the block to its end', () => {
    // C.2.1's field (10 + 13 + 32 = 55 bytes), then it again by index, then a second literal with indexing.
    const block = Buffer.concat([hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572'), hex('be'), hex('40 01 61 01 62')]);
    expect(new HpackDecoder().decodeWithin(block, 110 + 34, 3)).toEqual([['custom-key', 'custom-header'], ['custom-key', 'custom-header'], ['a', 'b']]);
    const bySize = new HpackDecoder();
    expect(bySize.decodeWithin(block, 109, 3)).toBe('a header list over 109 bytes');
    // The entry after the limit still joined the table: the peer's table and ours stay the same.
    expect(bySize.tableEntries()).toEqual([['a', 'b'], ['custom-key', 'custom-header']]);
    expect(new HpackDecoder().decodeWithin(block, Infinity, 2)).toBe('a header list of more than 2 fields');
  });
});

describe('encodeHeaderBlock', () => {
  const roundTrip = (fields: Fields): Fields => new HpackDecoder().decode(encodeHeaderBlock(fields));

  it('sends an exact static pair as one index byte', () => {
    expect(encodeHeaderBlock([[':method', 'GET'], [':status', '500'], ['accept-encoding', 'gzip, deflate']])).toEqual(hex('82 8e 90'));
  });

  it('sends a static name with its index and a raw value, never indexing it', () => {
    // :method is at 2 and 3: POST is an exact pair, PUT is not.
    expect(encodeHeaderBlock([[':method', 'PUT']])).toEqual(hex('02 03 505554'));
    // content-type is at 31: 0f 10 with a 4-bit prefix.
    expect(encodeHeaderBlock([['content-type', 'application/grpc']])).toEqual(Buffer.concat([hex('0f10 10'), Buffer.from('application/grpc')]));
  });

  it('sends an unknown name as a literal', () => {
    expect(encodeHeaderBlock([['te', 'trailers']])).toEqual(Buffer.concat([hex('00 02'), Buffer.from('te'), hex('08'), Buffer.from('trailers')]));
  });

  it('round-trips through the decoder, leaving its table empty', () => {
    const long = 'v'.repeat(200) + '\u00e9';
    const fields: Fields = [
      [':method', 'POST'], [':scheme', 'http'], [':path', '/runtime.v1.RuntimeService/ListContainers'], [':authority', 'localhost'],
      ['content-type', 'application/grpc'], ['te', 'trailers'], ['grpc-timeout', '1999m'], ['user-agent', ''], ['x-empty', ''],
      ['accept-encoding', 'gzip, deflate'], ['x-long', long], ['x-'.padEnd(130, 'n'), long.repeat(90)],
    ];
    const decoder = new HpackDecoder();
    expect(decoder.decode(encodeHeaderBlock(fields))).toEqual(fields);
    expect(decoder.tableEntries()).toEqual([]);
    expect(roundTrip([])).toEqual([]);
  });

  it('writes lengths past the 7-bit prefix as multi-byte integers', () => {
    const value = 'x'.repeat(127 + 300);
    // content-type (31 = 15 + 16), then 427 = 127 + 300: 7f ac 02.
    expect(encodeHeaderBlock([['content-type', value]]).subarray(0, 5)).toEqual(hex('0f10 7fac02'));
    expect(roundTrip([['content-type', value]])).toEqual([['content-type', value]]);
  });

  it('refuses characters beyond latin1', () => {
    expect(() => encodeHeaderBlock([['x-name', 'caf\u0113']])).toThrow(RangeError);
  });
});

describe('against nghttp2 (node:http2)', () => {
  // What the server's handler answers, per request, as headers and then trailers. Long lowercase
  // values, which nghttp2 Huffman-codes, and fields it adds to its dynamic table; the second answer
  // repeats most of them (indexed from the table) and changes one value (a dynamic name reference).
  const answers: Array<{ headers: Record<string, string>; trailers: Record<string, string> }> = [
    {
      headers: {
        ':status': '200', 'content-type': 'application/grpc', date: 'Mon, 21 Oct 2013 20:13:21 GMT',
        'x-request-trace': 'a-long-lowercase-value-that-huffman-coding-shortens', 'x-secret': 'never-put-in-a-table',
      },
      trailers: { 'grpc-status': '0', 'grpc-message': '' },
    },
    {
      headers: {
        ':status': '200', 'content-type': 'application/grpc', date: 'Mon, 21 Oct 2013 20:13:21 GMT',
        'x-request-trace': 'another-value-for-the-same-name', 'x-secret': 'never-put-in-a-table',
      },
      trailers: { 'grpc-status': '0', 'grpc-message': '' },
    },
  ];

  let server: Http2Server;
  let port: number;
  const requests: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    server = createServer();
    server.on('stream', (stream, headers) => {
      requests.push({ ...headers });
      const answer = answers[requests.length - 1]!;
      const outgoing: OutgoingHttpHeaders = { ...answer.headers, [sensitiveHeaders]: ['x-secret'] };
      stream.respond(outgoing, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers(answer.trailers));
      stream.end(Buffer.from([0, 0, 0, 0, 0]));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((done) => server.close(() => done()));
  });

  const frame = (type: number, flags: number, streamId: number, payload: Buffer): Buffer => {
    const header = Buffer.alloc(9);
    header.writeUIntBE(payload.length, 0, 3);
    header[3] = type;
    header[4] = flags;
    header.writeUInt32BE(streamId, 5);
    return Buffer.concat([header, payload]);
  };
  const DATA = 0x0;
  const HEADERS = 0x1;
  const SETTINGS = 0x4;
  const CONTINUATION = 0x9;
  const END_STREAM = 0x1;
  const END_HEADERS = 0x4;
  const PADDED = 0x8;
  const PRIORITY = 0x20;
  const ACK = 0x1;

  /** A raw HTTP/2 client: sends one request at a time and hands back every header block of the answer, as sent. */
  class RawClient {
    private readonly frames = new FrameSplitter();
    private blocks: Array<{ streamId: number; block: Buffer }> = [];
    private partial: { streamId: number; parts: Buffer[] } | undefined;
    private ended = new Set<number>();
    private wake: () => void = () => {};

    constructor(private readonly socket: Socket) {
      socket.on('data', (chunk: Buffer) => this.receive(chunk));
      socket.write(Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'));
      socket.write(frame(SETTINGS, 0, 0, Buffer.alloc(0)));
    }

    async request(streamId: number, fields: ReadonlyArray<readonly [string, string]>): Promise<Array<{ streamId: number; block: Buffer }>> {
      this.socket.write(frame(HEADERS, END_STREAM | END_HEADERS, streamId, encodeHeaderBlock(fields)));
      while (!this.ended.has(streamId)) await new Promise<void>((wake) => (this.wake = wake));
      return this.blocks.splice(0);
    }

    private receive(chunk: Buffer): void {
      for (const f of this.frames.push(chunk)) this.frame(f.type, f.flags, f.streamId, f.payload);
      this.wake();
    }

    private frame(type: number, flags: number, streamId: number, payload: Buffer): void {
      if (type === SETTINGS && !(flags & ACK)) this.socket.write(frame(SETTINGS, ACK, 0, Buffer.alloc(0)));
      if (type === HEADERS) {
        let start = 0;
        let end = payload.length;
        if (flags & PADDED) end -= payload[start++]!;
        if (flags & PRIORITY) start += 5;
        this.partial = { streamId, parts: [payload.subarray(start, end)] };
      }
      if (type === CONTINUATION) this.partial?.parts.push(payload);
      if ((type === HEADERS || type === CONTINUATION) && flags & END_HEADERS && this.partial) {
        this.blocks.push({ streamId: this.partial.streamId, block: Buffer.concat(this.partial.parts) });
        this.partial = undefined;
      }
      if ((type === HEADERS || type === DATA) && flags & END_STREAM) this.ended.add(streamId);
    }
  }

  it('reads our requests, and we read its Huffman-coded, table-indexed answers', async () => {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    try {
      const client = new RawClient(socket);
      const decoder = new HpackDecoder();
      const request: Array<[string, string]> = [[':method', 'GET'], [':scheme', 'http'], [':path', '/x'], [':authority', 'localhost']];

      const first = await client.request(1, request);
      expect(first.map((b) => b.streamId)).toEqual([1, 1]);
      const [firstHeaders, firstTrailers] = first.map((b) => decoder.decode(b.block));
      expect(Object.fromEntries(firstHeaders!)).toEqual(answers[0]!.headers);
      expect(firstHeaders).toHaveLength(Object.keys(answers[0]!.headers).length);
      expect(Object.fromEntries(firstTrailers!)).toEqual(answers[0]!.trailers);
      // nghttp2 put the fields in its table, ours followed — all but the sensitive one.
      const table = Object.fromEntries(decoder.tableEntries());
      expect(table).toMatchObject({ 'x-request-trace': answers[0]!.headers['x-request-trace'], 'grpc-status': '0' });
      expect(table).not.toHaveProperty('x-secret');
      // And Huffman-coded them: raw, the values alone would not fit in the block.
      const rawValues = Object.values(answers[0]!.headers).join('').length;
      expect(first[0]!.block.length).toBeLessThan(rawValues);

      const second = await client.request(3, [...request.slice(0, 2), [':path', '/y'], request[3]!]);
      expect(second.map((b) => b.streamId)).toEqual([3, 3]);
      const [secondHeaders, secondTrailers] = second.map((b) => decoder.decode(b.block));
      expect(Object.fromEntries(secondHeaders!)).toEqual(answers[1]!.headers);
      expect(Object.fromEntries(secondTrailers!)).toEqual(answers[1]!.trailers);
      // Repeated fields come as indices into the dynamic table: the trailers are two of them, a byte each.
      expect(second[0]!.block.length).toBeLessThan(first[0]!.block.length);
      expect(second[1]!.block).toHaveLength(2);
      expect([...second[1]!.block].every((byte) => byte >= 0x80 + STATIC_TABLE_LENGTH + 1)).toBe(true);

      expect(requests).toEqual([
        expect.objectContaining({ ':method': 'GET', ':scheme': 'http', ':path': '/x', ':authority': 'localhost' }),
        expect.objectContaining({ ':method': 'GET', ':scheme': 'http', ':path': '/y', ':authority': 'localhost' }),
      ]);
    } finally {
      socket.destroy();
    }
  });
});
