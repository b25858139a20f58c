/**
 * A RemoteCommandSession over the SPDY streams the client opened. Ending it follows the Go server:
 * output streams are closed first (so everything written reaches the client before the verdict),
 * then the outcome goes on the error stream, which is closed too, and only then does GOAWAY go out:
 * spdystream stops reading a connection at GOAWAY, so anything after it would be lost.
 */
import { finished, type Readable, type Writable } from 'node:stream';
import { exitStatusPayload } from '../exit-status.js';
import type { RemoteCommandOutcome, RemoteCommandSession, TerminalSize } from '../sessions.js';
import { readTerminalSizes } from '../resize-reader.js';
import type { SpdySession } from './session.js';
import type { SpdyStream } from './stream.js';

/** Sizes that came before anyone listened are kept for the first listener, up to this many. */
const MAX_EARLY_SIZES = 64;

export interface RemoteCommandStreams {
  error: SpdyStream;
  stdin?: SpdyStream;
  stdout?: SpdyStream;
  stderr?: SpdyStream;
  resize?: SpdyStream;
}

function whenWritten(stream: Writable): Promise<void> {
  return new Promise((resolve) => finished(stream, { readable: false }, () => resolve()));
}

export class SpdyRemoteCommandSession implements RemoteCommandSession {
  readonly stdin: Readable | null;
  readonly stdout: Writable | null;
  readonly stderr: Writable | null;
  private readonly abort = new AbortController();
  private readonly listeners: Array<(size: TerminalSize) => void> = [];
  private readonly earlySizes: TerminalSize[] = [];
  private finishing = false;

  constructor(
    private readonly session: SpdySession,
    private readonly streams: RemoteCommandStreams,
    readonly tty: boolean,
    private readonly statusAsJson: boolean,
  ) {
    this.stdin = streams.stdin ?? null;
    this.stdout = streams.stdout ?? null;
    this.stderr = streams.stderr ?? null;
    // The client never writes on these; reading them lets their FIN through and keeps the session moving.
    for (const s of [streams.error, streams.stdout, streams.stderr]) s?.resume();
    for (const s of Object.values(streams) as SpdyStream[]) s.on('error', () => undefined);
    if (streams.resize) readTerminalSizes(streams.resize, (size) => this.resized(size));
    session.signal.addEventListener('abort', () => {
      if (!this.finishing) this.abort.abort();
    }, { once: true });
  }

  get closed(): AbortSignal {
    return this.abort.signal;
  }

  onResize(listener: (size: TerminalSize) => void): void {
    this.listeners.push(listener);
    if (this.listeners.length === 1) for (const size of this.earlySizes.splice(0)) listener(size);
  }

  finish(outcome: RemoteCommandOutcome): void {
    if (this.finishing) return;
    this.finishing = true;
    void this.finishInOrder(outcome);
  }

  private async finishInOrder(outcome: RemoteCommandOutcome): Promise<void> {
    // Input no one will read any more is let through to nowhere, so it cannot hold up the session.
    this.streams.stdin?.unpipe();
    this.streams.stdin?.resume();
    const outputs = [this.streams.stdout, this.streams.stderr].filter((s): s is SpdyStream => s !== undefined);
    for (const out of outputs) out.end();
    await Promise.all(outputs.map(whenWritten));
    const error = this.streams.error;
    const payload = exitStatusPayload(outcome, this.statusAsJson);
    if (payload.length > 0) error.end(payload);
    else error.end();
    await whenWritten(error);
    this.session.close();
  }

  private resized(size: TerminalSize): void {
    if (this.listeners.length === 0) {
      if (this.earlySizes.length === MAX_EARLY_SIZES) this.earlySizes.shift();
      this.earlySizes.push(size);
      return;
    }
    for (const listener of this.listeners) listener(size);
  }
}
