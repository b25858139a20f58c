/**
 * Malicious HTTP/2 peers, the cases about streams: a server that sends as fast as our windows
 * allow to a reader that does not read, a connection that runs out of stream ids, a GOAWAY that
 * refuses a request unprocessed, and one very large watch event. Each on both transports (a unix
 * socket to the CRI client, TLS to the API client), under the bounds of malicious-peers.test.ts.
 */
import type { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { readWatchEvents } from '../../../src/adapters/apiserver/watch-stream.js';
import { createTestPki, type TestPki } from '../../apiserver/pki.js';
import {
  answerHeaders, answerWell, CASE_LIMITS as LIMITS, CLOSE_WITHIN_MS as WITHIN_MS, expectBounded, runCase, TIMED_OUT, untilEnd, within,
} from '../../support/malicious-h2-clients.js';
import { ERROR, FRAME, frameBytes, headerBlock, headerFrames, u32, type PeerConnection, type Transport } from '../../support/malicious-h2-server.js';

const MIB = 1024 * 1024;
/** What a peer may send to a reader that reads nothing: Go's 4 MiB stream window, and slack for the frames in flight. */
const PAUSED_READER_LIMIT_BYTES = 6 * MIB;
/** The message limit the CRI client is given in the paused-reader case: its answer runs past it. */
const SMALL_MESSAGE_LIMIT_BYTES = 1 * MIB;
/** One watch event, ten times etcd's 1.5 MiB object limit, and the time and memory it may take to decode. */
const BIG_EVENT_BYTES = 16 * MIB;
const BIG_EVENT_WITHIN_MS = 10_000;
/** The event itself is 16 MiB: its bytes, its text and its parsed object each hold a copy, and TLS its records. */
const BIG_EVENT_RSS_LIMIT_BYTES = 12 * BIG_EVENT_BYTES;

let pki: TestPki;
beforeAll(async () => {
  pki = await createTestPki();
});

/**
 * DATA on `id` as fast as the client's windows allow, until it resets the stream or closes
 * ('stopped'), more than `limit` went ('over'), or the windows stay shut ('held': a PING's answer
 * came back with no WINDOW_UPDATE before it, so none was on its way).
 */
async function sendAsWindowsAllow(peer: PeerConnection, id: number, limit: number, signal: AbortSignal): Promise<'held' | 'over' | 'stopped'> {
  const chunk = Buffer.alloc(16_384, 0x20);
  while (!signal.aborted && !peer.isClosed && !peer.counts.get(FRAME.RST_STREAM)) {
    if (peer.dataSent > limit) return 'over';
    const room = Math.min(peer.window(id), chunk.length);
    if (room > 0) {
      peer.take(id, room);
      if (!(await peer.send(frameBytes(FRAME.DATA, 0, id, chunk.subarray(0, room))))) break;
    } else {
      if (!(await peer.roundTrip())) break;
      if (peer.window(id) <= 0) return 'held';
    }
  }
  return 'stopped';
}

describe.each<Transport>(['unix', 'tls'])('a malicious HTTP/2 peer over %s', (transport) => {
  if (transport === 'tls') {
    it('case 6, a paused reader: a watch whose consumer reads nothing holds the server back after ~4 MiB', async () => {
      let sent = 0;
      let pushed!: (outcome: 'held' | 'over' | 'stopped') => void;
      const pushing = new Promise<'held' | 'over' | 'stopped'>((resolve) => (pushed = resolve));
      const { value, measured } = await runCase(transport, pki, LIMITS, async (peer, signal) => {
        const id = await peer.nextRequest();
        if (id === null) return pushed('stopped');
        await peer.send(headerFrames(id, answerHeaders(transport), false));
        const outcome = await sendAsWindowsAllow(peer, id, PAUSED_READER_LIMIT_BYTES, signal);
        sent = peer.dataSent;
        pushed(outcome);
        await untilEnd(peer, signal);
      }, async ({ client }) => {
        const body: Readable = await client.watch();
        // Not read: no 'data' listener, the stream stays paused. An error at the end is the cleanup's.
        body.on('error', () => {});
        return { pushed: await within(pushing, WITHIN_MS, TIMED_OUT), buffered: body.readableLength };
      });
      expect(value.pushed).toBe('held');
      expect(sent).toBeLessThanOrEqual(PAUSED_READER_LIMIT_BYTES);
      expect(value.buffered).toBeLessThanOrEqual(PAUSED_READER_LIMIT_BYTES);
      expectBounded(measured);
    });
  } else {
    it('case 6, an answer that runs past the message limit: refused, and the server held back within a window of it', async () => {
      let sent = 0;
      const { value, measured } = await runCase(transport, pki, { ...LIMITS, maxMessageBytes: SMALL_MESSAGE_LIMIT_BYTES }, async (peer, signal) => {
        const id = await peer.nextRequest();
        if (id === null) return;
        await peer.send(headerFrames(id, answerHeaders(transport), false));
        await sendAsWindowsAllow(peer, id, SMALL_MESSAGE_LIMIT_BYTES + PAUSED_READER_LIMIT_BYTES, signal);
        sent = peer.dataSent;
        await untilEnd(peer, signal);
      }, async ({ client }) => {
        const outcome = await within(client.call(), WITHIN_MS, TIMED_OUT);
        return outcome === TIMED_OUT || outcome.ok ? String(outcome === TIMED_OUT ? outcome : 'answered') : (outcome.error as { code?: number }).code;
      });
      expect(value).toBe(8); // RESOURCE_EXHAUSTED
      expect(sent).toBeLessThanOrEqual(SMALL_MESSAGE_LIMIT_BYTES + PAUSED_READER_LIMIT_BYTES);
      expectBounded(measured);
    });
  }

  it('case 7, stream ids run out: the request queued behind the last id opens on a new connection and succeeds', async () => {
    // One stream at a time, so a request waits for the last id's stream to end; ids 1 and 3 only.
    const oneStream = Buffer.alloc(6);
    oneStream.writeUInt16BE(0x3, 0);
    oneStream.writeUInt32BE(1, 2);
    const { value, server } = await runCase(transport, pki, { ...LIMITS, lastStreamId: 3 }, async (peer, signal) => {
      await peer.send(frameBytes(FRAME.SETTINGS, 0, 0, oneStream));
      for (let id = await peer.nextRequest(); id !== null && !signal.aborted; id = await peer.nextRequest()) await answerWell(peer, transport, id);
    }, async ({ client }) => {
      const first = await within(client.call(), WITHIN_MS, TIMED_OUT);
      const [second, third] = await Promise.all([within(client.call(), WITHIN_MS, TIMED_OUT), within(client.call(), WITHIN_MS, TIMED_OUT)]);
      return [first, second, third].map((o) => (o === TIMED_OUT ? o : o.ok ? 'ok' : o.error.message));
    });
    expect(value).toEqual(['ok', 'ok', 'ok']);
    expect(server.connections).toHaveLength(2);
  });

  it('case 8, GOAWAY below the request\'s stream: the request, unprocessed, is retried once on a new connection and succeeds', async () => {
    const { value, server, measured } = await runCase(transport, pki, LIMITS, async (peer, signal) => {
      const id = await peer.nextRequest();
      if (id === null) return;
      if (peer.index === 0) await peer.send(frameBytes(FRAME.GOAWAY, 0, 0, u32(Math.max(0, id - 2), ERROR.NO_ERROR)));
      else await answerWell(peer, transport, id);
      await untilEnd(peer, signal);
    }, async ({ client }) => {
      const outcome = await within(client.call(), WITHIN_MS, TIMED_OUT);
      return outcome === TIMED_OUT ? outcome : outcome.ok ? 'ok' : outcome.error.message;
    });
    expect(value).toBe('ok');
    expect(server.connections).toHaveLength(2);
    expectBounded(measured);
  });

  it('case 10, one 16 MiB answer (a watch event over TLS) decodes in bounded time', { timeout: 3 * BIG_EVENT_WITHIN_MS }, async () => {
    const event = Buffer.from(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'big' }, data: { blob: 'a'.repeat(BIG_EVENT_BYTES) } } })}\n`);
    const message = Buffer.concat([Buffer.from([0]), u32(BIG_EVENT_BYTES), Buffer.alloc(BIG_EVENT_BYTES, 0x61)]);
    const { value, measured } = await runCase(transport, pki, { rssBytes: BIG_EVENT_RSS_LIMIT_BYTES, caseMs: 2 * BIG_EVENT_WITHIN_MS, maxMessageBytes: 2 * BIG_EVENT_BYTES }, async (peer, signal) => {
      const id = await peer.nextRequest();
      if (id === null) return;
      await peer.send(headerFrames(id, answerHeaders(transport), false));
      if (transport === 'unix') {
        await peer.sendData(id, message);
        await peer.send(headerFrames(id, headerBlock([['grpc-status', '0']]), true));
      } else {
        await peer.sendData(id, event);
      }
      await untilEnd(peer, signal);
    }, async ({ client }) => {
      if (transport === 'unix') {
        const outcome = await within(client.call(), BIG_EVENT_WITHIN_MS, TIMED_OUT);
        return outcome === TIMED_OUT ? outcome : outcome.ok ? `${outcome.body.length} bytes` : outcome.error.message;
      }
      const body = await client.watch();
      const decoded = new Promise<string>((resolve) => {
        readWatchEvents(body, {
          onEvent: (type, object) => resolve(`${type} ${(object as { data: { blob: string } }).data.blob.length} bytes`),
          onEnd: (err) => resolve(`ended: ${String(err)}`),
        });
      });
      return within(decoded, BIG_EVENT_WITHIN_MS, TIMED_OUT);
    });
    expect(value).toBe(transport === 'unix' ? `${BIG_EVENT_BYTES} bytes` : `ADDED ${BIG_EVENT_BYTES} bytes`);
    expectBounded(measured, BIG_EVENT_RSS_LIMIT_BYTES);
  });
});
