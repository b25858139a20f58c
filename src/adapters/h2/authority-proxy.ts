/**
 * The front of a kubelet's gRPC sockets (the device plugins' kubelet.sock, the pod resources API):
 * a unix socket whose HTTP/2 connections are passed to the gRPC server behind it, with each
 * request's `:authority` made `localhost` when it is not a host name.
 *
 * Why: device plugins built on the v1.26 stub (the upstream sample plugin among them) dial
 * kubelet.sock with the socket's path as the authority (`/var/lib/kubelet/device-plugins/kubelet.sock`),
 * as clients that dial a unix socket by its path can. Go's HTTP/2 server takes that; node:http2 (nghttp2) refuses the stream with PROTOCOL_ERROR, and
 * has no setting to allow it. So the client's header blocks are decoded (HPACK, with the client's
 * dynamic table followed), the authority replaced, and sent on as literals that touch no table;
 * every other frame, and everything the server sends back, passes as it is.
 *
 * What it reads before the server does it bounds as node:http2 would behind it: frames past the
 * default SETTINGS_MAX_FRAME_SIZE, more CONTINUATION frames than nghttp2 allows, a header list past
 * node:http2's size or field count, or CONTINUATION out of place close the connection. Each
 * direction waits for the other side to read (no unbounded buffering of a peer that does not).
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { CLIENT_PREFACE, DEFAULT_MAX_FRAME_SIZE, FRAME_HEADER_BYTES, FrameFlag, FrameType, frame, unpadded } from './frames.js';
import { encodeHeaderBlock, HpackDecoder } from './hpack.js';
import { MAX_CONTINUATION_FRAMES, MAX_HEADER_LIST_BYTES, MAX_HEADER_LIST_FIELDS } from './limits.js';
import type { Logger } from '../../log.js';

/** A host[:port] as RFC 3986 allows it in an authority (no path characters). */
const HOST = /^[A-Za-z0-9\-._~%!$&'()*+,;=:[\]]*$/;

/** The header block with a path-like `:authority` replaced by `localhost`. */
export function fixedHeaderBlock(decoder: HpackDecoder, block: Buffer): Buffer {
  const decoded = decoder.decodeWithin(block, MAX_HEADER_LIST_BYTES, MAX_HEADER_LIST_FIELDS);
  if (typeof decoded === 'string') throw new Error(`a header list past ${decoded}`);
  const fields = decoded.map(([name, value]): [string, string] => (name === ':authority' && !HOST.test(value) ? [name, 'localhost'] : [name, value]));
  return encodeHeaderBlock(fields);
}

/** HEADERS (and CONTINUATION frames when the block is larger than a frame). */
function headersFrames(streamId: number, flags: number, priority: Buffer, block: Buffer): Buffer[] {
  const first = Math.min(block.length, DEFAULT_MAX_FRAME_SIZE - priority.length);
  const keep = flags & (FrameFlag.EndStream | FrameFlag.Priority);
  const out: Buffer[] = [];
  const rest = block.subarray(first);
  out.push(frame(FrameType.Headers, keep | (rest.length === 0 ? FrameFlag.EndHeaders : 0), streamId, Buffer.concat([priority, block.subarray(0, first)])));
  for (let at = 0; at < rest.length; at += DEFAULT_MAX_FRAME_SIZE) {
    const last = at + DEFAULT_MAX_FRAME_SIZE >= rest.length;
    out.push(frame(FrameType.Continuation, last ? FrameFlag.EndHeaders : 0, streamId, rest.subarray(at, at + DEFAULT_MAX_FRAME_SIZE)));
  }
  return out;
}

/**
 * The client-to-server direction of one connection: frames in, frames (rewritten where needed) out.
 * `prefaced` is called once the client's preface is whole: its magic and the frame after it.
 */
export function clientFrames(write: (b: Buffer) => void, fail: (why: string) => void, prefaced: () => void = () => {}): (chunk: Buffer) => void {
  const decoder = new HpackDecoder();
  let pending: Buffer = Buffer.alloc(0);
  let prefaceSeen = false;
  let firstFrameSeen = false;
  /** A header block waiting for its CONTINUATION frames. */
  let open: { streamId: number; flags: number; priority: Buffer; parts: Buffer[] } | null = null;
  let failed = false;
  const refuse = (why: string) => {
    failed = true;
    pending = Buffer.alloc(0);
    fail(why);
  };
  return (chunk) => {
    if (failed) return;
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    if (!prefaceSeen) {
      if (pending.length < CLIENT_PREFACE.length) return;
      write(pending.subarray(0, CLIENT_PREFACE.length));
      pending = pending.subarray(CLIENT_PREFACE.length);
      prefaceSeen = true;
    }
    while (pending.length >= FRAME_HEADER_BYTES) {
      const length = pending.readUIntBE(0, 3);
      // The server announces no larger frame: nghttp2 answers FRAME_SIZE_ERROR, so do we, before buffering it.
      if (length > DEFAULT_MAX_FRAME_SIZE) return refuse(`a frame of ${length} bytes, past ${DEFAULT_MAX_FRAME_SIZE}`);
      if (pending.length < FRAME_HEADER_BYTES + length) return;
      const type = pending[3]!;
      const flags = pending[4]!;
      const streamId = pending.readUInt32BE(5) & 0x7fffffff;
      // A header block is one HEADERS and its CONTINUATION frames, on its stream, with nothing between (RFC 9113 §6.10).
      if (open ? type !== FrameType.Continuation || streamId !== open.streamId : type === FrameType.Continuation) {
        return refuse('a CONTINUATION frame out of place, or another frame inside a header block');
      }
      if (open && open.parts.length > MAX_CONTINUATION_FRAMES) return refuse(`more than ${MAX_CONTINUATION_FRAMES} CONTINUATION frames`);
      const whole = pending.subarray(0, FRAME_HEADER_BYTES + length);
      const payload = whole.subarray(FRAME_HEADER_BYTES);
      pending = pending.subarray(FRAME_HEADER_BYTES + length);
      if (!firstFrameSeen) {
        firstFrameSeen = true;
        prefaced();
      }
      try {
        if (type === FrameType.Headers) {
          const priorityBytes = flags & FrameFlag.Priority ? 5 : 0;
          const body = unpadded(payload, flags, priorityBytes);
          if (body === null) throw new Error('HEADERS padding beyond the frame');
          const start = flags & FrameFlag.Padded ? 1 : 0;
          open = { streamId, flags, priority: Buffer.from(payload.subarray(start, start + priorityBytes)), parts: [Buffer.from(body)] };
        } else if (type === FrameType.Continuation) {
          open!.parts.push(Buffer.from(payload));
        } else {
          write(Buffer.from(whole));
          continue;
        }
        if (flags & FrameFlag.EndHeaders) {
          const done = open!;
          open = null;
          for (const f of headersFrames(done.streamId, done.flags, done.priority, fixedHeaderBlock(decoder, Buffer.concat(done.parts)))) write(f);
        }
      } catch (err) {
        return refuse(err instanceof Error ? err.message : String(err));
      }
    }
  };
}

/**
 * What a front may bound, for a socket open to less trusted clients: connections past
 * `maxConnections` are closed as they come (each one costs the front two descriptors and the server
 * behind it one), and a connection whose preface is not whole `prefaceTimeoutMs` after it came is closed.
 */
export interface FrontBounds { maxConnections: number; prefaceTimeoutMs: number }

/**
 * Serves `listenPath`, passing each connection to the HTTP/2 server on the socket `target` gives:
 * asked at each connection, so a server can be started on the first one (grpc-front.ts). A
 * connection waits, unread, until it answers; one it fails is closed. `what` names the socket in
 * the log.
 */
export async function startAuthorityProxy(listenPath: string, target: () => Promise<string>, logger: Logger, what: string, bounds?: FrontBounds): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const pass = (client: Socket, upstream: Socket, prefaced: () => void) => {
    sockets.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    const onData = clientFrames((b) => {
      if (!upstream.write(b)) client.pause();
    }, (why) => {
      logger.warn({ why, socket: listenPath }, `${what}: a connection sent what node:http2 would refuse; closed`);
      end();
    }, prefaced);
    client.on('data', onData);
    upstream.on('drain', () => client.resume());
    upstream.on('data', (b: Buffer) => {
      if (!client.write(b)) upstream.pause();
    });
    client.on('drain', () => upstream.resume());
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
    client.resume();
  };
  const server: Server = createServer({ pauseOnConnect: true }, (client) => {
    sockets.add(client);
    client.on('error', () => sockets.delete(client));
    const prefaced = bounds ? prefaceDeadline(client, bounds.prefaceTimeoutMs, () => logger.warn({ socket: listenPath, timeoutMs: bounds.prefaceTimeoutMs }, `${what}: a connection sent no HTTP/2 preface in time; closed`)) : () => {};
    target().then((path) => {
      if (client.destroyed) return;
      pass(client, connect(path), prefaced);
    }, (err: unknown) => {
      logger.error({ err, socket: listenPath }, `${what}: its server could not be started; the connection is closed`);
      sockets.delete(client);
      client.destroy();
    });
  });
  if (bounds) refusingPast(server, bounds.maxConnections, () => logger.warn({ socket: listenPath, maxConnections: bounds.maxConnections }, `${what}: connections at their bound; new ones are closed`));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenPath, () => resolve());
  });
  return {
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

/** Closes `client` unless the returned callback (its preface is whole) is called within `timeoutMs`. */
function prefaceDeadline(client: Socket, timeoutMs: number, onTimeout: () => void): () => void {
  const timer = setTimeout(() => {
    onTimeout();
    client.destroy();
  }, timeoutMs);
  client.once('close', () => clearTimeout(timer));
  return () => clearTimeout(timer);
}

/**
 * node:net's own bound: past `max` open connections a new one is closed as it is accepted ('drop').
 * Logged once per run of drops, so a flood makes one line, not one per connection.
 */
function refusingPast(server: Server, max: number, onFirstDrop: () => void): void {
  server.maxConnections = max;
  let dropping = false;
  server.on('drop', () => {
    if (!dropping) onFirstDrop();
    dropping = true;
  });
  server.on('connection', () => {
    dropping = false;
  });
}
