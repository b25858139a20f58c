/**
 * One accepted channel.k8s.io WebSocket, seen as Node streams per channel, with backpressure both
 * ways so a slow side never makes us hold a whole transfer in memory:
 * - out: a channel's Writable sends one message per chunk and calls back only once `ws` has handed
 *   it to the socket, so a writer that respects write()'s return value waits for a slow client;
 * - in: a channel's Readable that is full pauses the WebSocket (no more reads from the socket, so TCP
 *   pushes back on the client) until it is read from again.
 * The connection ends (`closed` aborts) when the client closes it, the socket fails, or nothing moved
 * either way for the idle timeout (Go's stream idle timeout, 4 h by default).
 */
import { Readable, Writable } from 'node:stream';
import type { WebSocket } from 'ws';
import { decodeFrame, encodeFrame, type ChannelProtocol } from './channel-framing.js';

export const DEFAULT_WS_IDLE_TIMEOUT_MS = 4 * 60 * 60 * 1000;

export interface WebSocketServeLimits {
  /** No message either way for this long closes the connection; 0 never does. */
  idleTimeoutMs?: number;
}

export class ChannelConnection {
  private readonly readers = new Map<number, Readable>();
  private readonly full = new Set<number>();
  private readonly abort = new AbortController();
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly ws: WebSocket, readonly protocol: ChannelProtocol, private readonly idleTimeoutMs: number) {
    ws.on('message', (message: Buffer) => this.receive(message));
    ws.on('close', () => this.ended());
    ws.on('error', () => this.ended());
    this.touch();
  }

  /** Aborted once the connection is gone, for whatever reason. */
  get closed(): AbortSignal {
    return this.abort.signal;
  }

  /** The client's data on `channel`; it ends when the client half-closes the channel (v5) or goes away. */
  readable(channel: number): Readable {
    const reader = new Readable({
      highWaterMark: 64 * 1024,
      read: () => {
        if (this.full.delete(channel) && this.full.size === 0) this.ws.resume();
      },
    });
    this.readers.set(channel, reader);
    return reader;
  }

  /** Our data on `channel`, one message per chunk. */
  writable(channel: number): Writable {
    return new Writable({
      highWaterMark: 64 * 1024,
      write: (chunk: Buffer, _encoding, callback) => this.send(channel, chunk, callback),
    });
  }

  /** One message now, e.g. the empty "connected" frame or a port's first two bytes. */
  send(channel: number, data: Buffer, callback: (err?: Error | null) => void = () => undefined): void {
    if (this.ws.readyState !== this.ws.OPEN) {
      callback(new Error('websocket is closed'));
      return;
    }
    this.touch();
    this.ws.send(encodeFrame(this.protocol, channel, data), { binary: this.protocol.binary }, (err) => callback(err ?? null));
  }

  /** Closes normally once what was sent has gone out. */
  close(): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.close(1000);
    this.ended();
  }

  private receive(message: Buffer): void {
    this.touch();
    const frame = decodeFrame(this.protocol, message);
    if (!frame || frame.kind === 'invalid') return; // Go logs and skips such frames
    const reader = this.readers.get(frame.channel);
    if (!reader || reader.readableEnded) return; // a channel nobody reads: ignored, as in Go
    if (frame.kind === 'close') {
      reader.push(null);
      return;
    }
    if (!reader.push(frame.data)) {
      this.full.add(frame.channel);
      this.ws.pause();
    }
  }

  private touch(): void {
    if (this.idleTimeoutMs <= 0) return;
    if (this.idleTimer) {
      this.idleTimer.refresh();
      return;
    }
    this.idleTimer = setTimeout(() => this.ws.terminate(), this.idleTimeoutMs);
    this.idleTimer.unref();
  }

  private ended(): void {
    if (this.abort.signal.aborted) return;
    clearTimeout(this.idleTimer);
    for (const reader of this.readers.values()) if (!reader.readableEnded) reader.push(null);
    this.abort.abort();
  }
}
