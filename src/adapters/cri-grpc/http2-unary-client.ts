/**
 * Unary gRPC calls on a bare `node:http2` session to a unix socket: every CRI call the kubelet
 * makes to a runtime's socket, without grpc-js's machinery around each call.
 *
 * Why: grpc-js's call objects, filters, metadata checks, picker, retry layer and status make each
 * call cost noticeably more CPU than the bare HTTP/2 request, and CRI calls need none of it. On an
 * idle node the relist's two calls a second are most of the kubelet's CPU; in a burst of pod starts
 * the sandbox, container and status calls are (docs/FINDINGS.md).
 *
 * What of gRPC's HTTP/2 protocol this speaks: a POST to `/<service>/<method>` with
 * `content-type: application/grpc`, `te: trailers` and `grpc-timeout`; the request as one
 * length-prefixed message (a flag byte, 0 = not compressed, then the length as 4 bytes big-endian);
 * the answer the same way, then its status in the trailers (or in the headers alone, a
 * "trailers-only" answer), `grpc-message` percent-encoded. What it leaves out, because these calls
 * never need it: compression, metadata, streaming, TLS. Failures are the statuses grpc-js reports
 * (call-outcome.ts), so callers map them to the same KubeletErrors.
 *
 * The connection: one session, opened by the first call, forgotten when it closes, fails or is sent
 * GOAWAY; the next call opens a new one. No back-off: the kubelet's loops pace their own calls (the
 * relist comes once a second anyway), and a runtime back on a new socket is reached at the next call. An idle session does not hold the process
 * open; a call in flight does, through its deadline timer.
 */
import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import { connect as connectSocket } from 'node:net';
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
export function statusIn(headers: IncomingHttpHeaders): { code: GrpcStatus; details: string } | null {
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

export function http2UnaryClient(socketPath: string, { maxMessageBytes }: { maxMessageBytes: number }): Http2UnaryClient {
  let current: ClientHttp2Session | null = null;
  let closed = false;

  const session = (): ClientHttp2Session => {
    if (current && !current.closed && !current.destroyed) return current;
    const opened = connect('http://localhost', { createConnection: () => connectSocket(socketPath) });
    const forget = () => {
      if (current === opened) current = null;
    };
    // A failed session fails its streams too; each call reports that on its own.
    opened.on('error', forget);
    opened.on('close', forget);
    opened.on('goaway', () => {
      forget();
      opened.close();
    });
    // An idle connection does not hold the process open; a call's deadline timer does, while it lasts.
    opened.unref();
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

      let stream: ClientHttp2Stream;
      try {
        stream = session().request({
          ':method': 'POST',
          ':path': path,
          'content-type': 'application/grpc',
          te: 'trailers',
          'grpc-timeout': grpcTimeout(deadline - Date.now()),
        }, { endStream: false });
      } catch (err) {
        // A session torn down in this very tick refuses new streams synchronously.
        return refuse(GrpcStatus.UNAVAILABLE, (err as Error).message);
      }
      // The idle session is unreferenced (above): the deadline's timer holds the process for the call.
      const finish = settledOnce(deadline, callback, { holdsProcess: true, onExpired: () => stream.close(constants.NGHTTP2_CANCEL) });

      const chunks: Buffer[] = [];
      let received = 0;
      let httpStatus: number | undefined;
      let status: ReturnType<typeof statusIn> = null;
      stream.on('response', (headers) => {
        httpStatus = headers[':status'];
        status = statusIn(headers);
      });
      stream.on('trailers', (trailers) => {
        status = statusIn(trailers) ?? status;
      });
      stream.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > PREFIX_BYTES + maxMessageBytes) {
          finish(serviceError(GrpcStatus.RESOURCE_EXHAUSTED, `Received message larger than max (${received - PREFIX_BYTES} vs. ${maxMessageBytes})`));
          stream.close(constants.NGHTTP2_CANCEL);
          return;
        }
        chunks.push(chunk);
      });
      // The socket could not be reached, or the session died under the call.
      stream.on('error', (err: Error) => finish(serviceError(GrpcStatus.UNAVAILABLE, err.message)));
      stream.on('close', () => {
        if (status === null) {
          const code = httpStatus !== undefined && httpStatus !== 200 ? statusForHttp(httpStatus) : GrpcStatus.UNAVAILABLE;
          return finish(serviceError(code, `the stream closed without a gRPC status (HTTP ${httpStatus ?? 'none'}, RST_STREAM code ${stream.rstCode ?? 'none'})`));
        }
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
      });
      stream.end(framedMessage(message));
    },
    close() {
      closed = true;
      current?.close();
      current = null;
    },
  };
}
