/**
 * port-forward over SPDY/3.1 (`portforward.k8s.io`), the server side of Go's
 * pkg/kubelet/cri/streaming/portforward: the client opens streams in pairs that share a
 * `requestID` header, one with `streamType: error` and one with `streamType: data`, both naming the
 * pod's `port`. Once both are there the port is dialled through the runtime's PortDialer and bytes
 * flow both ways; a dial failure's message goes on the error stream. A stream with a missing or bad
 * port or type is refused, as Go refuses it; a pair whose other half does not come within the
 * stream-creation timeout is dropped with Go's "timed out waiting for streams" on its error stream.
 *
 * Ending one connection: the client's FIN half-closes the pod connection and the pod decides when it
 * is done; once the pod has closed its side, the client's direction gets a second of quiet to finish
 * (containerd gives a second flat; we restart it while bytes still flow, so an upload in progress is
 * not cut), then both sides are closed and the error stream ends; kubectl waits for that end
 * before it lets go of the local connection.
 *
 * What the caller passes: the upgrade request, socket and head (Node's 'upgrade' event), and the
 * runtime's dialer; the session lives until the client hangs up or the idle timeout hits.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { PortDialer } from '../sessions.js';
import { firstHeader, type SpdyHeaders } from './header-block.js';
import { resolveServeLimits, type SpdyServeLimits } from './serve-limits.js';
import { SpdySession } from './session.js';
import type { SpdyStream } from './stream.js';
import { acceptUpgrade, decideUpgrade, refuseUpgrade } from './upgrade.js';

export const PORT_FORWARD_PROTOCOLS = ['portforward.k8s.io'] as const;

/** containerd's grace for the second direction once the first is done. */
const LINGER_MS = 1000;

interface StreamPair {
  requestId: string;
  data?: SpdyStream;
  error?: SpdyStream;
  timer: NodeJS.Timeout;
}

type PairedStream = { type: 'data' | 'error'; port: number; requestId: string };

/** Go's checks on a new stream's headers; undefined refuses the stream. */
function pairedStream(headers: SpdyHeaders, streamId: number): PairedStream | undefined {
  const portText = firstHeader(headers, 'port');
  if (portText === undefined || !/^[0-9]+$/.test(portText)) return undefined;
  const port = Number(portText);
  if (port < 1 || port > 65535) return undefined;
  const type = firstHeader(headers, 'streamType');
  if (type !== 'data' && type !== 'error') return undefined;
  // Old clients sent no request id: Go pairs a data stream with the error stream opened just before it.
  const requestId = firstHeader(headers, 'requestID') ?? String(type === 'error' ? streamId : streamId - 2);
  return { type, port, requestId };
}

export function serveSpdyPortForward(req: IncomingMessage, socket: Duplex, head: Buffer, dial: PortDialer, limits?: SpdyServeLimits): void {
  const decision = decideUpgrade(req, PORT_FORWARD_PROTOCOLS);
  if (!decision.ok) return refuseUpgrade(socket, decision);
  acceptUpgrade(socket, decision.protocol);
  const { session: sessionLimits, streamCreationTimeoutMs } = resolveServeLimits(limits);
  const pairs = new Map<string, StreamPair>();

  const session = new SpdySession(socket, head, (headers, streamId) => {
    const paired = pairedStream(headers, streamId);
    if (!paired) return undefined;
    const existing = pairs.get(paired.requestId);
    if (existing?.[paired.type]) {
      existing.error?.write(`error processing stream for request ${paired.requestId}: ${paired.type} stream already assigned`);
      return undefined;
    }
    return (stream) => {
      stream.on('error', () => undefined);
      const pair = existing ?? newPair(paired.requestId);
      pair[paired.type] = stream;
      if (pair.data && pair.error) {
        clearTimeout(pair.timer);
        pairs.delete(pair.requestId);
        forward(pair.data, pair.error, paired.type === 'data' ? paired.port : Number(firstHeader(pair.data.headers, 'port')), dial);
      }
    };
  }, sessionLimits);

  function newPair(requestId: string): StreamPair {
    const pair: StreamPair = {
      requestId,
      timer: setTimeout(() => {
        pairs.delete(requestId);
        pair.error?.end(`(request=${requestId}) timed out waiting for streams`);
        pair.data?.destroy();
      }, streamCreationTimeoutMs),
    };
    pairs.set(requestId, pair);
    return pair;
  }

  session.signal.addEventListener('abort', () => {
    for (const pair of pairs.values()) clearTimeout(pair.timer);
    pairs.clear();
  }, { once: true });
}

function forward(data: SpdyStream, error: SpdyStream, port: number, dial: PortDialer): void {
  // The client only reads the error stream; reading it lets its FIN through.
  error.resume();
  dial(port).then((conn) => {
    if (data.destroyed) return conn.destroy();
    let over = false;
    let linger: NodeJS.Timeout | undefined;
    const finish = (failure?: Error) => {
      if (over) return;
      over = true;
      clearTimeout(linger);
      if (failure) error.write(failure.message);
      error.end();
      if (!data.writableEnded && !data.destroyed) data.end();
      conn.destroy();
    };
    // The pod is done sending: the client's side gets LINGER_MS of quiet before it is cut, since
    // kubectl does not close its side of a local connection until the error stream has ended.
    const podDone = () => {
      if (data.readableEnded) return finish();
      linger = setTimeout(() => finish(), LINGER_MS);
      data.on('data', () => linger?.refresh());
    };
    // The client is done sending: the pod has had its EOF (pipe ends conn) and decides when it is done.
    const clientDone = () => {
      if (conn.readableEnded) finish();
    };
    conn.on('error', (e: Error) => finish(e));
    conn.once('end', podDone);
    conn.once('close', () => finish());
    data.once('end', clientDone);
    data.once('close', () => finish());
    conn.pipe(data);
    data.pipe(conn);
  }, (failure: unknown) => {
    error.end(failure instanceof Error ? failure.message : String(failure));
    data.end();
  });
}
