/**
 * The limits our HTTP/2 client holds against a peer that misbehaves (src/adapters/h2/limits.ts),
 * each against a bare peer that sends the frames nghttp2 and Go's x/net/http2 refuse: the stream is
 * reset or the connection closed, as those libraries answer, and what a well-behaved peer does still
 * works.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientConnection, type ClientConnectionOptions, type ClientStream, type HeaderFields, type StreamFailure } from '../../../src/adapters/h2/client-connection.js';
import { encodeHeaderBlock } from '../../../src/adapters/h2/hpack.js';
import {
  GLITCH_BURST, MAX_CONTINUATION_FRAMES, MAX_HEADER_LIST_BYTES, MAX_HEADER_LIST_FIELDS, MAX_QUEUED_CONTROL_FRAMES,
} from '../../../src/adapters/h2/limits.js';
import { framedMessage, http2UnaryClient } from '../../../src/adapters/cri-grpc/http2-unary-client.js';
import { indexedLiteral, rawFrame, rawPeer, u32, type Frame, type RawConnection, type RawPeer } from './raw-peer.js';

const T = { DATA: 0, HEADERS: 1, PRIORITY: 2, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7, WINDOW_UPDATE: 8, CONTINUATION: 9 } as const;
const F = { END_STREAM: 1, ACK: 1, END_HEADERS: 4 } as const;
const E = { NO_ERROR: 0, PROTOCOL_ERROR: 1, FLOW_CONTROL_ERROR: 3, FRAME_SIZE_ERROR: 6, REFUSED_STREAM: 7, ENHANCE_YOUR_CALM: 0xb } as const;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function peer(): Promise<RawPeer> {
  const p = await rawPeer();
  cleanups.push(() => p.close());
  return p;
}

function client(p: RawPeer, options: ClientConnectionOptions = {}): ClientConnection {
  const connection = new ClientConnection(connect(p.path), options);
  cleanups.push(() => connection.destroy(new Error('test over')));
  return connection;
}

interface Outcome { headers: HeaderFields[]; data: Buffer[]; ended: Promise<'end' | StreamFailure>; stream: ClientStream }

/** One request whose answer is recorded; `consume` says whether its reader consumes what it is handed. */
function request(connection: ClientConnection, consume = true): Outcome {
  const headers: HeaderFields[] = [];
  const data: Buffer[] = [];
  let settle: (v: 'end' | StreamFailure) => void = () => {};
  const ended = new Promise<'end' | StreamFailure>((resolve) => { settle = resolve; });
  const stream: ClientStream = connection.request([[':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'localhost']], Buffer.alloc(0), {
    onHeaders: (fields) => headers.push(fields),
    onData: (chunk) => {
      data.push(chunk);
      if (consume) stream.consumed(chunk.length);
    },
    onEnd: () => settle('end'),
    onFailure: (failure) => settle(failure),
  });
  return { headers, data, ended, stream };
}

const isGoAway = (f: Frame) => f.type === T.GOAWAY;
const goAwayCode = (f: Frame) => f.payload.readUInt32BE(4);
const rstOf = (id: number) => (f: Frame) => f.type === T.RST_STREAM && f.streamId === id;
const headersFrame = (id: number, block: Buffer, flags: number = F.END_HEADERS) => rawFrame(T.HEADERS, flags, id, block);
const STATUS_200 = Buffer.from([0x88]);

/** The client's connection error: its GOAWAY's code, and the connection closed. */
async function expectConnectionError(conn: RawConnection, connection: ClientConnection, code: number): Promise<void> {
  const goAway = await conn.next(isGoAway);
  expect(goAwayCode(goAway)).toBe(code);
  await conn.closed;
  expect(connection.closed).toBe(true);
}

describe('ClientConnection against a misbehaving peer: header lists', () => {
  it('resets a stream whose header list goes over the size limit while decoding, and keeps the table in step for the next', async () => {
    const p = await peer();
    const connection = client(p);
    const first = request(connection);
    const conn = await p.accept();
    await conn.next((f) => f.type === T.HEADERS && f.streamId === 1);
    // A table entry of 4 KB, then as many references to it as the frame holds: an HPACK "bomb".
    const entry = indexedLiteral('x-big', 'b'.repeat(4000));
    const bomb = Buffer.concat([STATUS_200, entry, Buffer.alloc(12_000, 0xbe)]);
    conn.send(headersFrame(1, bomb, F.END_HEADERS | F.END_STREAM));
    const failure = await first.ended as StreamFailure;
    expect(failure.message).toBe(`HTTP/2 stream error: the answer's headers are a header list over ${MAX_HEADER_LIST_BYTES} bytes, more than we take`);
    expect(first.headers).toEqual([]);
    expect((await conn.next(rstOf(1))).payload.readUInt32BE(0)).toBe(E.PROTOCOL_ERROR);
    // The entry the refused block added is still in the client's table: the next answer refers to it.
    const second = request(connection);
    await conn.next((f) => f.type === T.HEADERS && f.streamId === 3);
    conn.send(headersFrame(3, Buffer.from([0x88, 0xbe]), F.END_HEADERS | F.END_STREAM));
    expect(await second.ended).toBe('end');
    expect(second.headers).toEqual([[[':status', '200'], ['x-big', 'b'.repeat(4000)]]]);
    expect(connection.usable).toBe(true);
  });

  it(`resets a stream whose header list has more than ${MAX_HEADER_LIST_FIELDS} fields`, async () => {
    const p = await peer();
    const connection = client(p);
    const outcome = request(connection);
    const conn = await p.accept();
    await conn.next((f) => f.type === T.HEADERS);
    conn.send(headersFrame(1, Buffer.alloc(MAX_HEADER_LIST_FIELDS + 1, 0x88), F.END_HEADERS | F.END_STREAM));
    expect(await outcome.ended).toMatchObject({ message: `HTTP/2 stream error: the answer's headers are a header list of more than ${MAX_HEADER_LIST_FIELDS} fields, more than we take` });
    expect(connection.usable).toBe(true);
  });

  it(`takes a header block over ${MAX_CONTINUATION_FRAMES} CONTINUATION frames, and closes the connection at one more, empty ones counted`, async () => {
    const p = await peer();
    const connection = client(p);
    const within = request(connection);
    const conn = await p.accept();
    await conn.next((f) => f.type === T.HEADERS && f.streamId === 1);
    const parts = [headersFrame(1, Buffer.alloc(0), F.END_STREAM)];
    for (let i = 0; i < MAX_CONTINUATION_FRAMES - 1; i++) parts.push(rawFrame(T.CONTINUATION, 0, 1));
    parts.push(rawFrame(T.CONTINUATION, F.END_HEADERS, 1, STATUS_200));
    conn.send(...parts);
    expect(await within.ended).toBe('end');
    expect(within.headers).toEqual([[[':status', '200']]]);
    const flood = request(connection);
    await conn.next((f) => f.type === T.HEADERS && f.streamId === 3);
    conn.send(headersFrame(3, Buffer.alloc(0), 0), ...Array.from({ length: 10_000 }, () => rawFrame(T.CONTINUATION, 0, 3)));
    await expectConnectionError(conn, connection, E.ENHANCE_YOUR_CALM);
    expect(await flood.ended).toMatchObject({ message: `HTTP/2 connection error: a header block continued over more than ${MAX_CONTINUATION_FRAMES} CONTINUATION frames` });
  });
});

describe('ClientConnection against a misbehaving peer: frames the RFC refuses', () => {
  const cases: Array<[string, Buffer, number, string]> = [
    ['a PING of 16 bytes', rawFrame(T.PING, 0, 0, Buffer.alloc(16)), E.FRAME_SIZE_ERROR, 'a PING frame of 16 bytes, not 8'],
    ['a PING on a stream', rawFrame(T.PING, 0, 1, Buffer.alloc(8)), E.PROTOCOL_ERROR, 'a PING frame on stream 1, not 0'],
    ['a SETTINGS on a stream', rawFrame(T.SETTINGS, 0, 1), E.PROTOCOL_ERROR, 'a SETTINGS frame on stream 1, not 0'],
    ['a SETTINGS acknowledgement with a payload', rawFrame(T.SETTINGS, F.ACK, 0, Buffer.alloc(6)), E.FRAME_SIZE_ERROR, 'a SETTINGS acknowledgement with 6 bytes of payload'],
    ['a WINDOW_UPDATE of 3 bytes', rawFrame(T.WINDOW_UPDATE, 0, 0, Buffer.alloc(3)), E.FRAME_SIZE_ERROR, 'a WINDOW_UPDATE frame of 3 bytes, not 4'],
    ['a RST_STREAM of 5 bytes', rawFrame(T.RST_STREAM, 0, 1, Buffer.alloc(5)), E.FRAME_SIZE_ERROR, 'a RST_STREAM frame of 5 bytes, not 4'],
    ['a WINDOW_UPDATE of 0 for the connection', rawFrame(T.WINDOW_UPDATE, 0, 0, u32(0)), E.PROTOCOL_ERROR, 'a WINDOW_UPDATE of 0 for the connection'],
    ['a connection window past 2^31-1', rawFrame(T.WINDOW_UPDATE, 0, 0, u32(2 ** 31 - 1)), E.FLOW_CONTROL_ERROR, 'a WINDOW_UPDATE takes the connection\'s window over 2^31-1'],
    ['a SETTINGS frame of 33 settings', rawFrame(T.SETTINGS, 0, 0, Buffer.alloc(6 * 33)), E.ENHANCE_YOUR_CALM, 'a SETTINGS frame of 33 settings, over the 32 we take'],
  ];
  it.each(cases)('closes the connection on %s, with the RFC\'s error', async (_what, bad, code, message) => {
    const p = await peer();
    const connection = client(p);
    const outcome = request(connection);
    const conn = await p.accept();
    await conn.next((f) => f.type === T.HEADERS);
    conn.send(bad);
    await expectConnectionError(conn, connection, code);
    expect(await outcome.ended).toMatchObject({ message: `HTTP/2 connection error: ${message}` });
  });

  it('resets only the stream on a WINDOW_UPDATE of 0 or past 2^31-1 for it, and keeps the connection', async () => {
    const p = await peer();
    const connection = client(p);
    const zero = request(connection);
    const over = request(connection);
    const conn = await p.accept();
    await conn.next((f) => f.type === T.HEADERS && f.streamId === 3);
    conn.send(rawFrame(T.WINDOW_UPDATE, 0, 1, u32(0)), rawFrame(T.WINDOW_UPDATE, 0, 3, u32(2 ** 31 - 1)));
    expect((await conn.next(rstOf(1))).payload.readUInt32BE(0)).toBe(E.PROTOCOL_ERROR);
    expect((await conn.next(rstOf(3))).payload.readUInt32BE(0)).toBe(E.FLOW_CONTROL_ERROR);
    expect(await zero.ended).toMatchObject({ message: 'HTTP/2 stream error: a WINDOW_UPDATE of 0 for the stream' });
    expect(await over.ended).toMatchObject({ message: 'HTTP/2 stream error: a WINDOW_UPDATE takes the stream\'s window over 2^31-1' });
    expect(connection.usable).toBe(true);
  });
});

describe('ClientConnection against a misbehaving peer: floods', () => {
  it('closes the connection of a peer that sends PINGs without reading the answers', async () => {
    const p = await peer();
    const connection = client(p);
    const outcome = request(connection);
    const conn = await p.accept();
    await conn.next((f) => f.type === T.HEADERS);
    conn.socket.pause();
    // Chunks of PINGs until the client gives up, each far more than the socket's buffers hold of answers.
    const pings = Buffer.concat(Array.from({ length: 4096 }, () => rawFrame(T.PING, 0, 0, Buffer.alloc(8))));
    for (let i = 0; i < 400 && !connection.closed; i++) {
      if (!conn.socket.write(pings)) await new Promise((resolve) => { conn.socket.once('drain', resolve); conn.socket.once('close', resolve); });
    }
    expect(connection.closed).toBe(true);
    expect(await outcome.ended).toMatchObject({ message: `HTTP/2 connection error: the peer does not read, and over ${MAX_QUEUED_CONTROL_FRAMES} answers to its frames are queued` });
  });

  it(`closes the connection past a burst of ${GLITCH_BURST} useless frames: resets of idle streams, empty DATA frames`, async () => {
    for (const useless of [rawFrame(T.RST_STREAM, 0, 101, u32(0)), rawFrame(T.DATA, 0, 1)]) {
      const p = await peer();
      const connection = client(p);
      request(connection);
      const conn = await p.accept();
      await conn.next((f) => f.type === T.HEADERS);
      conn.send(headersFrame(1, STATUS_200));
      conn.send(...Array.from({ length: GLITCH_BURST }, () => useless));
      // Within the burst the connection goes on: a PING is still answered.
      conn.send(rawFrame(T.PING, 0, 0, Buffer.from('in burst')));
      await conn.next((f) => f.type === T.PING && f.flags === F.ACK);
      expect(connection.closed).toBe(false);
      conn.send(...Array.from({ length: 100 }, () => useless));
      await expectConnectionError(conn, connection, E.ENHANCE_YOUR_CALM);
    }
  });
});

describe('ClientConnection receive windows', () => {
  it('gives a stream\'s window back only as its reader consumes, and resets a stream the peer sends past it', async () => {
    const p = await peer();
    const connection = client(p, { receiveWindow: 1000 });
    const paused = request(connection, false);
    const conn = await p.accept();
    await conn.next((f) => f.type === T.HEADERS && f.streamId === 1);
    conn.send(headersFrame(1, STATUS_200), rawFrame(T.DATA, 0, 1, Buffer.alloc(1000, 1)), rawFrame(T.PING, 0, 0, Buffer.from('after da')));
    await conn.next((f) => f.type === T.PING && f.flags === F.ACK);
    expect(paused.data.reduce((n, c) => n + c.length, 0)).toBe(1000);
    // Nothing consumed: nothing of the stream's window came back.
    expect(conn.frames.filter((f) => f.type === T.WINDOW_UPDATE && f.streamId === 1)).toEqual([]);
    paused.stream.consumed(600);
    const update = await conn.next((f) => f.type === T.WINDOW_UPDATE && f.streamId === 1);
    expect(update.payload.readUInt32BE(0)).toBe(600);
    // 600 more may come; 601 is past the window.
    conn.send(rawFrame(T.DATA, 0, 1, Buffer.alloc(601, 2)));
    expect((await conn.next(rstOf(1))).payload.readUInt32BE(0)).toBe(E.FLOW_CONTROL_ERROR);
    expect(await paused.ended).toMatchObject({ message: 'HTTP/2 stream error: a DATA frame of 601 bytes, over the 600 left in the stream\'s window' });
    expect(() => paused.stream.consumed(-1)).toThrow('a stream\'s reader consumes a whole number of bytes, not -1');
  });

  it('closes the connection of a peer that sends past the connection\'s window', async () => {
    const p = await peer();
    const connection = client(p, { receiveWindow: 70_000, connectionReceiveWindow: 65_535 });
    request(connection, false);
    const conn = await p.accept();
    await conn.next((f) => f.type === T.HEADERS && f.streamId === 1);
    conn.send(headersFrame(1, STATUS_200), rawFrame(T.DATA, 0, 1, Buffer.alloc(16_000)), rawFrame(T.DATA, 0, 1, Buffer.alloc(16_000)),
      rawFrame(T.DATA, 0, 1, Buffer.alloc(16_000)), rawFrame(T.DATA, 0, 1, Buffer.alloc(16_000)), rawFrame(T.DATA, 0, 1, Buffer.alloc(1_536)));
    await expectConnectionError(conn, connection, E.FLOW_CONTROL_ERROR);
  });
});

describe('ClientConnection out of stream ids', () => {
  it('fails its queued requests as unprocessed, and closes with GOAWAY once its last stream ends', async () => {
    const p = await peer();
    let closedSeen = 0;
    const connection = client(p, { lastStreamId: 3, onClosed: () => closedSeen++ });
    const first = request(connection);
    const conn = await p.accept([[3 /* MAX_CONCURRENT_STREAMS */, 1]]);
    await conn.next((f) => f.type === T.HEADERS && f.streamId === 1);
    await conn.next((f) => f.type === T.SETTINGS && f.flags === F.ACK);
    const second = request(connection);
    const third = request(connection);
    conn.send(headersFrame(1, STATUS_200, F.END_HEADERS | F.END_STREAM));
    expect(await first.ended).toBe('end');
    await conn.next((f) => f.type === T.HEADERS && f.streamId === 3);
    expect(await third.ended).toEqual({ message: 'the connection ran out of stream ids before the request was sent', unprocessed: true });
    expect(connection.usable).toBe(false);
    expect(closedSeen).toBeGreaterThan(0);
    conn.send(headersFrame(3, STATUS_200, F.END_HEADERS | F.END_STREAM));
    expect(await second.ended).toBe('end');
    expect(goAwayCode(await conn.next(isGoAway))).toBe(E.NO_ERROR);
    await conn.closed;
    expect(connection.closed).toBe(true);
  });
});

describe('http2UnaryClient against a misbehaving peer', () => {
  const echoCall = (client: ReturnType<typeof http2UnaryClient>) => new Promise<Buffer>((resolve, reject) => {
    client.makeUnaryRequest('/x.Y/Z', (b: Buffer) => b, (b: Buffer) => b, Buffer.from('ping'), { deadline: Date.now() + 10_000 }, (err, res) => (err ? reject(err) : resolve(res!)));
  });
  const answer = (conn: RawConnection, id: number) => conn.send(
    headersFrame(id, encodeHeaderBlock([[':status', '200'], ['content-type', 'application/grpc']])),
    rawFrame(T.DATA, 0, id, framedMessage(Buffer.from('pong'))),
    headersFrame(id, encodeHeaderBlock([['grpc-status', '0']]), F.END_HEADERS | F.END_STREAM),
  );

  it('sends a call refused by GOAWAY once more, on a new connection', async () => {
    const p = await peer();
    const client = http2UnaryClient(p.path, { maxMessageBytes: 1024 });
    cleanups.push(() => client.close());
    const result = echoCall(client);
    const refusing = await p.accept();
    await refusing.next((f) => f.type === T.HEADERS);
    refusing.send(rawFrame(T.GOAWAY, 0, 0, Buffer.concat([u32(0), u32(E.NO_ERROR)])));
    const second = await p.accept();
    await second.next((f) => f.type === T.HEADERS && f.streamId === 1);
    answer(second, 1);
    expect((await result).toString()).toBe('pong');
  });

  it('sends a call refused by REFUSED_STREAM once more, on the connection that still takes streams', async () => {
    const p = await peer();
    const client = http2UnaryClient(p.path, { maxMessageBytes: 1024 });
    cleanups.push(() => client.close());
    const result = echoCall(client);
    const conn = await p.accept();
    await conn.next((f) => f.type === T.HEADERS && f.streamId === 1);
    conn.send(rawFrame(T.RST_STREAM, 0, 1, u32(E.REFUSED_STREAM)));
    await conn.next((f) => f.type === T.HEADERS && f.streamId === 3);
    answer(conn, 3);
    expect((await result).toString()).toBe('pong');
  });

  it('moves calls queued on a connection out of stream ids to a new one', async () => {
    const p = await peer();
    const client = http2UnaryClient(p.path, { maxMessageBytes: 1024, lastStreamId: 1 });
    cleanups.push(() => client.close());
    const first = echoCall(client);
    const conn = await p.accept([[3 /* MAX_CONCURRENT_STREAMS */, 1]]);
    await conn.next((f) => f.type === T.HEADERS && f.streamId === 1);
    const second = echoCall(client);
    answer(conn, 1);
    expect((await first).toString()).toBe('pong');
    const next = await p.accept();
    await next.next((f) => f.type === T.HEADERS && f.streamId === 1);
    answer(next, 1);
    expect((await second).toString()).toBe('pong');
  });
});
