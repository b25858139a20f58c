/**
 * Malicious HTTP/2 peers, each case on both of our clients' transports: a runtime on a unix socket
 * (the CRI client's unary calls) and an API server over TLS (the API client's requests). Each case
 * asserts the call is refused or the connection closed within a bound, and that the process's
 * memory and event loop stay within bounds while the peer misbehaves. The bounds are generous for
 * a loaded two-core machine; the figures themselves belong to a benchmark, not here.
 * malicious-peers-streams.test.ts has the cases about streams, windows and GOAWAY.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestPki, type TestPki } from '../../apiserver/pki.js';
import {
  answerHeaders, CASE_LIMITS as LIMITS, CLOSE_WITHIN_MS, expectBounded, flood, repeated, runCase, TIMED_OUT, untilEnd, within, type CaseContext,
} from '../../support/malicious-h2-clients.js';
import {
  ERROR, FLAG, FRAME, frameBytes, headerFrames, indexedLiteralField, u32, type Frame, type PeerConnection, type Transport,
} from '../../support/malicious-h2-server.js';

const MIB = 1024 * 1024;

let pki: TestPki;
beforeAll(async () => {
  pki = await createTestPki();
});

/** Whether the call ended in a failure within the bound, and the client closed the connection within it too. */
async function refusedAndClosed({ server, client }: CaseContext): Promise<{ failed: boolean; closed: boolean }> {
  const outcome = await within(client.call(), CLOSE_WITHIN_MS, TIMED_OUT);
  const failed = outcome !== TIMED_OUT && !outcome.ok;
  const peer = server.connections[0];
  const closed = peer !== undefined && (await within(peer.closed.then(() => peer.closedByClient), CLOSE_WITHIN_MS, false));
  return { failed, closed };
}

/** Waits for the client's GOAWAY or RST_STREAM (with its code), or what else `gives` says gives it away. */
async function connectionAnswer(peer: PeerConnection, gives: (f: Frame) => boolean = () => false): Promise<Frame | null> {
  return peer.nextFrame((f) => f.type === FRAME.GOAWAY || f.type === FRAME.RST_STREAM || gives(f));
}

const codeOf = (f: Frame | null): string => {
  if (!f) return 'nothing before the connection closed';
  if (f.type === FRAME.GOAWAY) return `GOAWAY ${f.payload.readUInt32BE(4)}`;
  if (f.type === FRAME.RST_STREAM) return `RST_STREAM ${f.payload.readUInt32BE(0)}`;
  return `frame type ${f.type} (length ${f.payload.length})`;
};

describe.each<Transport>(['unix', 'tls'])('a malicious HTTP/2 peer over %s', (transport) => {
  it('case 1, HPACK bomb: 1 MiB header blocks of one-byte references to a 4 KiB table entry are refused, memory and loop bounded', async () => {
    // One entry fills the 4,096-byte table (1 + 4,063 + 32); every 0xbe byte (index 62) repeats it.
    const entry = indexedLiteralField('x', 'v'.repeat(4063));
    const blockBytes = MIB - 1024;
    const first = Buffer.concat([answerHeaders(transport), entry]);
    const firstBlock = Buffer.concat([first, Buffer.alloc(blockBytes - first.length, 0xbe)]);
    const bomb = Buffer.alloc(blockBytes, 0xbe);
    const { value, measured } = await runCase(transport, pki, LIMITS, async (peer, signal) => {
      const id = await peer.nextRequest();
      if (id === null) return;
      await peer.send(headerFrames(id, firstBlock, false));
      const again = headerFrames(id, bomb, false);
      await flood(peer, again, signal, 16);
    }, async (context) => {
      const outcome = await within(context.client.call(), CLOSE_WITHIN_MS, TIMED_OUT);
      return outcome !== TIMED_OUT && !outcome.ok;
    });
    expect(value, `the call was refused within ${CLOSE_WITHIN_MS} ms`).toBe(true);
    expectBounded(measured);
  });

  it('case 2, CONTINUATION flood: HEADERS without END_HEADERS and 1.5M empty CONTINUATION frames close the connection', async () => {
    const { value, measured } = await runCase(transport, pki, LIMITS, async (peer, signal) => {
      const id = await peer.nextRequest();
      if (id === null) return;
      await peer.send(frameBytes(FRAME.HEADERS, 0, id, answerHeaders(transport)));
      const batch = repeated(frameBytes(FRAME.CONTINUATION, 0, id), 10_000);
      await flood(peer, batch, signal, 150);
    }, refusedAndClosed);
    expect(value).toEqual({ failed: true, closed: true });
    expectBounded(measured);
  });

  it('case 3a, PING flood from a peer that does not read: the connection is closed, memory bounded', async () => {
    const { value, measured } = await runCase(transport, pki, LIMITS, async (peer, signal) => {
      if ((await peer.nextRequest()) === null) return;
      peer.stopReading();
      await flood(peer, repeated(frameBytes(FRAME.PING, 0, 0, Buffer.alloc(8, 7)), 4096), signal);
    }, refusedAndClosed);
    expect(value).toEqual({ failed: true, closed: true });
    expectBounded(measured);
  });

  it('case 3b, SETTINGS flood from a peer that does not read: the connection is closed, memory bounded', async () => {
    const { value, measured } = await runCase(transport, pki, LIMITS, async (peer, signal) => {
      if ((await peer.nextRequest()) === null) return;
      peer.stopReading();
      await flood(peer, repeated(frameBytes(FRAME.SETTINGS, 0, 0), 8192), signal);
    }, refusedAndClosed);
    expect(value).toEqual({ failed: true, closed: true });
    expectBounded(measured);
  });

  it('case 4, a 16 KiB PING payload is a FRAME_SIZE_ERROR, not echoed', async () => {
    let answer = '';
    const { value, measured } = await runCase(transport, pki, LIMITS, async (peer, signal) => {
      if ((await peer.nextRequest()) === null) return;
      await peer.send(frameBytes(FRAME.PING, 0, 0, Buffer.alloc(16_384, 1)));
      answer = codeOf(await connectionAnswer(peer, (f) => f.type === FRAME.PING && (f.flags & FLAG.ACK) !== 0 && f.payload.length > 8));
      await untilEnd(peer, signal);
    }, refusedAndClosed);
    expect(answer).toBe(`GOAWAY ${ERROR.FRAME_SIZE_ERROR}`);
    expect(value).toEqual({ failed: true, closed: true });
    expectBounded(measured);
  });

  describe.each([
    { what: 'the connection\'s window past 2^31-1', stream: false, increment: 2 ** 31 - 1, code: ERROR.FLOW_CONTROL_ERROR },
    { what: 'a stream\'s window past 2^31-1', stream: true, increment: 2 ** 31 - 1, code: ERROR.FLOW_CONTROL_ERROR },
    { what: 'a zero increment to the connection\'s window', stream: false, increment: 0, code: ERROR.PROTOCOL_ERROR },
    { what: 'a zero increment to a stream\'s window', stream: true, increment: 0, code: ERROR.PROTOCOL_ERROR },
  ])('case 5, WINDOW_UPDATE', ({ what, stream, increment, code }) => {
    it(`${what}: answered with ${stream ? 'RST_STREAM or GOAWAY' : 'GOAWAY'} ${code}, and the call fails`, async () => {
      let answered!: (answer: string) => void;
      const answer = new Promise<string>((resolve) => (answered = resolve));
      const { value, measured } = await runCase(transport, pki, LIMITS, async (peer, signal) => {
        const id = await peer.nextRequest();
        if (id === null) return answered('no request');
        await peer.send(frameBytes(FRAME.WINDOW_UPDATE, 0, stream ? id : 0, u32(increment)));
        answered(codeOf(await connectionAnswer(peer)));
        await untilEnd(peer, signal);
      }, async ({ client }) => {
        const outcome = await within(client.call(), CLOSE_WITHIN_MS, TIMED_OUT);
        // The server reads the client's answer before the case ends and closes both sides.
        return { failed: outcome !== TIMED_OUT && !outcome.ok, answer: await within(answer, CLOSE_WITHIN_MS, TIMED_OUT) };
      });
      expect(stream ? [`RST_STREAM ${code}`, `GOAWAY ${code}`] : [`GOAWAY ${code}`]).toContain(value.answer);
      expect(value.failed, `the call failed within ${CLOSE_WITHIN_MS} ms`).toBe(true);
      expectBounded(measured);
    });
  });

  describe.each([
    {
      what: 'empty DATA frames on the answer\'s stream',
      opening: (id: number) => headerFrames(id, answerHeaders(transport), false),
      frame: (id: number) => frameBytes(FRAME.DATA, 0, id),
    },
    { what: 'RST_STREAM for idle streams', opening: () => Buffer.alloc(0), frame: (id: number, i: number) => frameBytes(FRAME.RST_STREAM, 0, id + 2 * (i + 1), u32(ERROR.NO_ERROR)) },
    { what: 'WINDOW_UPDATE for idle streams', opening: () => Buffer.alloc(0), frame: (id: number, i: number) => frameBytes(FRAME.WINDOW_UPDATE, 0, id + 2 * (i + 1), u32(1)) },
  ])('case 9, a flood of useless frames', ({ what, opening, frame }) => {
    it(`${what}: the connection is closed`, async () => {
      const { value, measured } = await runCase(transport, pki, LIMITS, async (peer, signal) => {
        const id = await peer.nextRequest();
        if (id === null) return;
        await peer.send(opening(id));
        // Stream ids climb through the flood, so each frame names a stream never opened.
        for (let batch = 0; !signal.aborted && !peer.isClosed; batch++) {
          const frames = Buffer.concat(Array.from({ length: 1024 }, (_, i) => frame(id, batch * 1024 + i)));
          if (!(await peer.send(frames))) return;
        }
      }, refusedAndClosed);
      expect(value).toEqual({ failed: true, closed: true });
      expectBounded(measured);
    });
  });
});
