/**
 * Unary gRPC calls on an HTTP/2 connection of our own to a unix socket (../h2/client-connection.ts):
 * every CRI call the kubelet makes to a runtime's socket, without grpc-js's machinery around each
 * call, nor `node:http2`'s around each stream.
 *
 * Why: grpc-js's call objects, filters, metadata checks, picker, retry layer and status, and then
 * node's HTTP/2 streams, each cost more CPU than the frames a call sends, and CRI calls need none of
 * it. On an idle node the relist's two calls a second are most of the kubelet's CPU; in a burst of
 * pod starts the sandbox, container and status calls are (docs/FINDINGS.md).
 *
 * What of gRPC's HTTP/2 protocol this speaks: a POST to `/<service>/<method>` with
 * `content-type: application/grpc`, `te: trailers` and `grpc-timeout`; the request as one
 * length-prefixed message (a flag byte, 0 = not compressed, then the length as 4 bytes big-endian);
 * the answer the same way, then its status in the trailers (or in the headers alone, a
 * "trailers-only" answer), `grpc-message` percent-encoded. What it leaves out, because these calls
 * never need it: compression, metadata, streaming, TLS. Failures are the statuses grpc-js reports
 * (call-outcome.ts), so callers map them to the same KubeletErrors.
 *
 * The connection: one, opened by the first call, forgotten when it closes, fails, is sent GOAWAY or
 * runs out of stream ids; the next call opens a new one. A call the runtime never processed (refused
 * by its GOAWAY or REFUSED_STREAM, or left queued on a connection out of stream ids) goes once more on
 * a new connection, as grpc-go and grpc-js retry it. No back-off: the kubelet's loops pace their own
 * calls (the relist comes once a second anyway), and a runtime back on a new socket is reached at the
 * next call. An idle connection does not hold the process open; a call in flight does, through its
 * deadline timer.
 */
import { connect as connectSocket } from 'node:net';
import { ClientConnection, type ClientStream, type HeaderFields } from '../h2/client-connection.js';
import { refuseCall, serviceError, settledOnce } from './call-outcome.js';
import { GrpcStatus, isGrpcStatus } from './grpc-status.js';
import type { UnaryCallback, UnaryClient } from './unary-call.js';

/** The flag byte and the 4-byte length in front of every message. */
const PREFIX_BYTES = 5;

export interface Http2UnaryClient extends UnaryClient {
  close(): void;
}

/** `grpc-timeout`: at most 8 digits and a unit; milliseconds while they fit, else seconds. */
export function grpcTimeout(ms: number): string {
  const whole = Math.max(0, Math.ceil(ms));
  return whole <= 99_999_999 ? `${whole}m` : `${Math.min(99_999_999, Math.ceil(whole / 1000))}S`;
}

export function framedMessage(message: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(PREFIX_BYTES + message.length);
  frame.writeUInt8(0, 0);
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, PREFIX_BYTES);
  return frame;
}

/** The one message of a unary answer's body, or what is wrong with the body. */
export function unframedMessage(body: Buffer): Buffer | { problem: string } {
  if (body.length < PREFIX_BYTES) return { problem: 'the answer holds no message' };
  if (body[0] !== 0) return { problem: 'the answer is compressed, which was not asked for' };
  const length = body.readUInt32BE(1);
  if (body.length !== PREFIX_BYTES + length) {
    return { problem: `the answer's prefix announces ${length} bytes, ${body.length - PREFIX_BYTES} came` };
  }
  return body.subarray(PREFIX_BYTES);
}

/** The status in a header block, if it carries one. */
export function statusIn(headers: Readonly<Record<string, string | number | string[] | undefined>>): { code: GrpcStatus; details: string } | null {
  const raw = headers['grpc-status'];
  if (typeof raw !== 'string') return null;
  const code = Number(raw);
  const message = headers['grpc-message'];
  return {
    code: isGrpcStatus(code) ? code : GrpcStatus.UNKNOWN,
    details: typeof message === 'string' ? percentDecoded(message) : '',
  };
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** An HTTP status other than 200 with no gRPC status: gRPC's published mapping. */
export function statusForHttp(httpStatus: number): GrpcStatus {
  switch (httpStatus) {
    case 400: return GrpcStatus.INTERNAL;
    case 401: return GrpcStatus.UNAUTHENTICATED;
    case 403: return GrpcStatus.PERMISSION_DENIED;
    case 404: return GrpcStatus.UNIMPLEMENTED;
    case 429: case 502: case 503: case 504: return GrpcStatus.UNAVAILABLE;
    default: return GrpcStatus.UNKNOWN;
  }
}

export interface Http2UnaryClientOptions {
  maxMessageBytes: number;
  /** The last stream id of each connection: HTTP/2's, unless a test wants it to run out. */
  lastStreamId?: number;
}

export function http2UnaryClient(socketPath: string, { maxMessageBytes, lastStreamId }: Http2UnaryClientOptions): Http2UnaryClient {
  let current: ClientConnection | null = null;
  let closed = false;

  const connection = (): ClientConnection => {
    if (current?.usable) return current;
    const socket = connectSocket(socketPath);
    // An idle connection does not hold the process open; a call's deadline timer does, while it lasts.
    socket.unref();
    const opened = new ClientConnection(socket, {
      ...(lastStreamId !== undefined ? { lastStreamId } : {}),
      onClosed: () => {
        if (current === opened) current = null;
      },
    });
    current = opened;
    return opened;
  };

  return {
    makeUnaryRequest<Req, Res>(
      path: string, serialize: (request: Req) => Buffer, deserialize: (bytes: Buffer) => Res, request: Req,
      { deadline }: { deadline: number }, callback: UnaryCallback<Res>,
    ): void {
      // The codec runs first and may throw, synchronously, as grpc-js's does.
      const message = serialize(request);
      const refuse = (code: GrpcStatus, details: string) => refuseCall(callback, code, details);
      if (closed) return refuse(GrpcStatus.UNAVAILABLE, 'the client is closed');
      if (message.length > maxMessageBytes) {
        return refuse(GrpcStatus.RESOURCE_EXHAUSTED, `Sent message larger than max (${message.length} vs. ${maxMessageBytes})`);
      }

      let chunks: Buffer[] = [];
      let received = 0;
      let httpStatus: number | undefined;
      let status: ReturnType<typeof statusIn> = null;
      /** The stream ended without a status: what the runtime's HTTP answer and reset make of it. */
      const statusless = (rstCode: number | undefined) => {
        const code = httpStatus !== undefined && httpStatus !== 200 ? statusForHttp(httpStatus) : GrpcStatus.UNAVAILABLE;
        return serviceError(code, `the stream closed without a gRPC status (HTTP ${httpStatus ?? 'none'}, RST_STREAM code ${rstCode ?? 'none'})`);
      };
      let finish: UnaryCallback<Res> = () => {};
      let stream: ClientStream;
      const framed = framedMessage(message);
      /** Sends the call as a stream; a retry is the second attempt, after the first went unprocessed. */
      const send = (retry: boolean): ClientStream => connection().request(requestFields(path, deadline), framed, {
        onHeaders(fields) {
          const headers = headerRecord(fields);
          if (httpStatus === undefined) httpStatus = Number(headers[':status']);
          status = statusIn(headers) ?? status;
        },
        onData(chunk) {
          // A unary answer is read whole, bounded by the size limit below: consumed as it comes.
          stream.consumed(chunk.length);
          received += chunk.length;
          if (received > PREFIX_BYTES + maxMessageBytes) {
            stream.cancel();
            finish(serviceError(GrpcStatus.RESOURCE_EXHAUSTED, `Received message larger than max (${received - PREFIX_BYTES} vs. ${maxMessageBytes})`));
            return;
          }
          chunks.push(chunk);
        },
        onEnd() {
          if (status === null) return finish(statusless(undefined));
          if (status.code !== GrpcStatus.OK) return finish(serviceError(status.code, status.details));
          const body = unframedMessage(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
          if (!Buffer.isBuffer(body)) return finish(serviceError(GrpcStatus.INTERNAL, body.problem));
          let response: Res;
          try {
            response = deserialize(body);
          } catch (err) {
            return finish(serviceError(GrpcStatus.INTERNAL, `Failed to parse server response: ${(err as Error).message}`));
          }
          finish(null, response);
        },
        // The socket could not be reached, the connection died under the call, or the runtime reset it.
        onFailure({ message: reason, rstCode, unprocessed }) {
          if (unprocessed && !retry) {
            // The runtime never saw the call: it goes once more, on a new connection.
            chunks = [];
            received = 0;
            httpStatus = undefined;
            status = null;
            try {
              stream = send(true);
              return;
            } catch (err) {
              return finish(serviceError(GrpcStatus.UNAVAILABLE, (err as Error).message));
            }
          }
          finish(rstCode !== undefined ? statusless(rstCode) : serviceError(GrpcStatus.UNAVAILABLE, reason));
        },
      });
      try {
        stream = send(false);
      } catch (err) {
        // A connection that failed in this very tick takes no new stream.
        return refuse(GrpcStatus.UNAVAILABLE, (err as Error).message);
      }
      // The idle connection is unreferenced (above): the deadline's timer holds the process for the call.
      finish = settledOnce(deadline, callback, { holdsProcess: true, onExpired: () => stream.cancel() });
    },
    close() {
      closed = true;
      current?.close();
      current = null;
    },
  };
}

/** The request's header fields; all but the timeout are the same for every call of a method. */
const fieldsByPath = new Map<string, ReadonlyArray<readonly [string, string]>>();

function requestFields(path: string, deadline: number): Array<readonly [string, string]> {
  let fixed = fieldsByPath.get(path);
  if (!fixed) {
    fixed = [
      [':method', 'POST'], [':scheme', 'http'], [':path', path], [':authority', 'localhost'],
      ['content-type', 'application/grpc'], ['te', 'trailers'],
    ];
    fieldsByPath.set(path, fixed);
  }
  return [...fixed, ['grpc-timeout', grpcTimeout(deadline - Date.now())]];
}

function headerRecord(fields: HeaderFields): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of fields) record[name] = value;
  return record;
}
