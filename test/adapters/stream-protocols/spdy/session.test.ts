/**
 * The SPDY session on its own, over a real TCP connection on 127.0.0.1 with the test client at the
 * other end: stream bookkeeping (every way a stream ends frees it), the protocol rules it enforces
 * with RST_STREAM or GOAWAY, and the frames it ignores on purpose.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeFrame } from '../../../../src/adapters/stream-protocols/spdy/frames.js';
import { firstHeader } from '../../../../src/adapters/stream-protocols/spdy/header-block.js';
import { DEFAULT_SESSION_LIMITS, SpdySession, type SpdySessionLimits, type StreamAcceptor } from '../../../../src/adapters/stream-protocols/spdy/session.js';
import type { SpdyStream } from '../../../../src/adapters/stream-protocols/spdy/stream.js';
import { SpdyClient } from '../../../support/spdy-client.js';
import { collect, eventually } from './collect.js';

let listener: Server | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await new Promise((r) => (listener ? listener.close(r) : r(null)));
  listener = undefined;
});

async function pairUp(accept: StreamAcceptor, limits: Partial<SpdySessionLimits> = {}): Promise<{ session: SpdySession; client: SpdyClient }> {
  let session: SpdySession | undefined;
  listener = createServer((socket) => {
    sockets.push(socket);
    session = new SpdySession(socket, Buffer.alloc(0), accept, { ...DEFAULT_SESSION_LIMITS, idleTimeoutMs: 0, ...limits });
  });
  await new Promise<void>((r) => listener!.listen(0, '127.0.0.1', r));
  const socket = connect((listener.address() as AddressInfo).port, '127.0.0.1');
  sockets.push(socket);
  await new Promise((r) => socket.once('connect', r));
  await eventually('the session', () => session !== undefined);
  return { session: session!, client: new SpdyClient(socket, Buffer.alloc(0), undefined) };
}

/** Accepts every stream, echoing what it reads back to the client. */
const echo: StreamAcceptor = () => (stream) => stream.pipe(stream);

describe('SPDY session', () => {
  it('hands each accepted stream over with its headers, and frees it once both sides sent FIN', async () => {
    const seen: Array<{ id: number; kind?: string }> = [];
    const { session, client } = await pairUp((headers, id) => (stream) => {
      seen.push({ id, kind: firstHeader(headers, 'kind') });
      stream.pipe(stream);
    });
    const streams = Array.from({ length: 200 }, (_, i) => client.openStream({ kind: `k${i}` }));
    const echoed = await Promise.all(streams.map((s, i) => {
      const back = collect(s);
      s.end(`payload ${i}`);
      return back;
    }));
    expect(echoed.map((b) => b.toString())).toEqual(streams.map((_, i) => `payload ${i}`));
    expect(seen).toEqual(streams.map((s, i) => ({ id: s.id, kind: `k${i}` })));
    await eventually('every stream freed', () => session.openStreams === 0);
  });

  it('frees a stream the client resets, and one its user destroys (telling the client with RST_STREAM CANCEL)', async () => {
    let served: SpdyStream | undefined;
    const { session, client } = await pairUp(() => (stream) => (served = stream));
    const first = client.openStream({});
    await first.replied;
    expect(session.openStreams).toBe(1);
    first.reset();
    await eventually('the reset stream freed', () => session.openStreams === 0 && served!.destroyed);

    const second = client.openStream({});
    await second.replied;
    served!.destroy();
    await eventually('the client to see the reset', () => second.resetStatus === 5);
    expect(session.openStreams).toBe(0);
  });

  it('on an abrupt hang-up frees every stream and aborts its signal', async () => {
    const { session, client } = await pairUp(echo);
    const open = [client.openStream({}), client.openStream({}), client.openStream({})];
    await Promise.all(open.map((s) => s.replied));
    expect(session.openStreams).toBe(3);
    client.socket.destroy();
    await eventually('the session to end', () => session.signal.aborted);
    expect(session.openStreams).toBe(0);
  });

  it('refuses a SYN_STREAM with an even or non-increasing id (PROTOCOL_ERROR) and past the stream limit (REFUSED_STREAM)', async () => {
    const { client } = await pairUp(echo, { maxConcurrentStreams: 2 });
    const a = client.openStream({});
    const b = client.openStream({});
    await Promise.all([a.replied, b.replied]);
    const c = client.openStream({});
    await eventually('the refusal', () => c.resetStatus === 3);
    // Stream 3's id again, then an even one: ids must be odd and grow.
    client.openStream({}, { id: 3 });
    client.openStream({}, { id: 8 });
    const protocolErrors = () => client.frames.filter((f) => f.type === 'rstStream' && f.status === 1).map((f) => f.type === 'rstStream' && f.streamId);
    await eventually('the protocol errors', () => protocolErrors().length === 2);
    expect(protocolErrors()).toEqual([3, 8]);
  });

  it('ignores WINDOW_UPDATE, SETTINGS, unknown control frames and data for unknown streams', async () => {
    const { session, client } = await pairUp(echo);
    client.send({ type: 'windowUpdate', streamId: 0, delta: 1 });
    client.send({ type: 'settings', clear: false, entries: [{ flags: 0, id: 7, value: 1 }] });
    const unknown = encodeFrame({ type: 'ping', id: 1 });
    unknown.writeUInt16BE(99, 2);
    client.sendRaw(unknown);
    client.send({ type: 'data', streamId: 41, fin: true, data: Buffer.from('stray') });
    const s = client.openStream({});
    const back = collect(s);
    s.end('still fine');
    expect((await back).toString()).toBe('still fine');
    expect(session.signal.aborted).toBe(false);
  });

  it('ends the session with GOAWAY PROTOCOL_ERROR on a frame of another SPDY version', async () => {
    const { session, client } = await pairUp(echo);
    const v2 = encodeFrame({ type: 'ping', id: 1 });
    v2.writeUInt16BE(0x8002, 0);
    client.sendRaw(v2);
    await client.closed;
    expect(client.goAway).toEqual({ lastGoodStreamId: 0, status: 1 });
    expect(session.signal.aborted).toBe(true);
  });

  it('on the client’s GOAWAY refuses new streams and hangs up once the open ones are done', async () => {
    const { session, client } = await pairUp(echo);
    const open = client.openStream({});
    await open.replied;
    client.send({ type: 'goAway', lastGoodStreamId: 0, status: 0 });
    const late = client.openStream({});
    await eventually('the late stream refused', () => late.resetStatus === 3);
    const back = collect(open);
    open.end('last words');
    expect((await back).toString()).toBe('last words');
    await client.closed;
    await eventually('the session to end', () => session.signal.aborted);
  });

  it('survives hostile bytes: garbage, truncated and random frames end in GOAWAY or are ignored, never a crash', async () => {
    const frameLike = fc.oneof(
      fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
      // A well-formed control header (version 3, any type and flags) with a random payload.
      fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 255 }), fc.uint8Array({ maxLength: 40 })).map(([type, flags, payload]) => {
        const head = Buffer.alloc(8);
        head.writeUInt32BE((0x80030000 | type) >>> 0, 0);
        head.writeUInt32BE(((flags << 24) | payload.length) >>> 0, 4);
        return Buffer.concat([head, Buffer.from(payload)]);
      }),
    );
    await fc.assert(fc.asyncProperty(fc.array(frameLike, { minLength: 1, maxLength: 6 }), async (chunks) => {
      const { session, client } = await pairUp(echo);
      for (const chunk of chunks) client.sendRaw(chunk);
      // Whatever it made of that, the session ended, still answers a PING, or waits for the rest of
      // a frame the garbage announced (the idle timeout's business); and it never threw.
      const outcome = await Promise.race([
        client.ping(101).then(() => 'answered'),
        client.closed.then(() => 'ended'),
        // Garbage may leave the session waiting for a frame that never comes: nothing signals that, so 300 ms bounds the race.
        new Promise((r) => setTimeout(() => r('waiting'), 300)),
      ]);
      if (outcome === 'ended') await eventually('the session to end', () => session.signal.aborted);
      if (outcome === 'answered') expect(session.signal.aborted).toBe(false);
      client.socket.destroy();
      await eventually('the session to be gone', () => session.signal.aborted);
      expect(session.openStreams).toBe(0);
      await new Promise((r) => listener!.close(r));
      listener = undefined;
    }), { numRuns: 40 });
  }, 60_000);
});
