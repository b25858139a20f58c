/**
 * The seam between a streaming transport (SPDY/3.1 or WebSocket, as kubectl and client-node speak
 * them) and the runtime that runs the command or dials the port. A transport turns its channels into
 * these plain Node streams; the runtime never learns which protocol is underneath, and a transport
 * never learns what runs behind it.
 */
import type { Duplex, Readable, Writable } from 'node:stream';

export interface TerminalSize {
  width: number;
  height: number;
}

/** What the CRI request asked for: only these channels are opened (Go's StreamOptions; the kubelet parses the same). */
export type { RemoteCommandOptions } from '../../domain/kubelet-server/streaming-options.js';

/** How a command ended, as the runtime reports it back on the error channel. */
export type RemoteCommandOutcome =
  | { kind: 'exited'; exitCode: number; command: readonly string[] }
  | { kind: 'failed'; message: string };

/** One exec or attach, as the transport hands it to the runtime. */
export interface RemoteCommandSession {
  /** The client's input; null unless stdin was asked for. Ends when the client closes its stdin. */
  readonly stdin: Readable | null;
  readonly stdout: Writable | null;
  /** Null under a TTY: a terminal has one output (Go merges stderr into stdout there). */
  readonly stderr: Writable | null;
  readonly tty: boolean;
  /** Terminal sizes from the client's resize channel, in order; the first may arrive before any output. */
  onResize(listener: (size: TerminalSize) => void): void;
  /** Ends the session: the outcome on the error channel (a v4 Status), then every channel closed. */
  finish(outcome: RemoteCommandOutcome): void;
  /** Aborted when the client goes away (or the idle timeout hits) before finish. */
  readonly closed: AbortSignal;
}

/**
 * Opens a connection to a port of the pod; rejects with an Error whose message the transport writes
 * on that port's error channel (Go's "error forwarding port ..." text is the runtime's to build).
 */
export type PortDialer = (port: number) => Promise<Duplex>;
