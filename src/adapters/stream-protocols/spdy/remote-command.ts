/**
 * exec and attach over SPDY/3.1, the server side of Go's remotecommand (pkg/kubelet/cri/streaming/
 * remotecommand): negotiate the channel.k8s.io version, upgrade, wait for the streams the request
 * asked for (each named by its `streamType` header) within the stream-creation timeout, then hand
 * the runtime a RemoteCommandSession. A stream nobody asked for, or one after the wait, is refused.
 *
 * What the caller passes: the upgrade request, its socket and head (Node's 'upgrade' event), the
 * channels the CRI request asked for, and `run`, which gets the session once every stream is there
 * (it is never called if the client does not open them in time or goes away first).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RemoteCommandOptions, RemoteCommandSession } from '../sessions.js';
import { firstHeader } from './header-block.js';
import { SpdyRemoteCommandSession, type RemoteCommandStreams } from './remote-command-session.js';
import { resolveServeLimits, type SpdyServeLimits } from './serve-limits.js';
import { SpdySession } from './session.js';
import type { SpdyStream } from './stream.js';
import { acceptUpgrade, decideUpgrade, refuseUpgrade } from './upgrade.js';

/** Go's supported versions, newest first; the client's own order decides among them. */
export const REMOTE_COMMAND_PROTOCOLS = ['v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io', 'channel.k8s.io'] as const;

type StreamType = keyof RemoteCommandStreams;

function expectedStreams(options: RemoteCommandOptions, protocol: string): Set<StreamType> {
  const expected = new Set<StreamType>(['error']);
  if (options.stdin) expected.add('stdin');
  if (options.stdout) expected.add('stdout');
  // Go drops stderr under a TTY: a terminal has one output.
  if (options.stderr && !options.tty) expected.add('stderr');
  // Resizing came with v3.
  if (options.tty && (protocol === 'v4.channel.k8s.io' || protocol === 'v3.channel.k8s.io')) expected.add('resize');
  return expected;
}

export function serveSpdyRemoteCommand(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  options: RemoteCommandOptions,
  run: (session: RemoteCommandSession) => void,
  limits?: SpdyServeLimits,
): void {
  const decision = decideUpgrade(req, REMOTE_COMMAND_PROTOCOLS);
  if (!decision.ok) return refuseUpgrade(socket, decision);
  acceptUpgrade(socket, decision.protocol);
  const { session: sessionLimits, streamCreationTimeoutMs } = resolveServeLimits(limits);
  const expected = expectedStreams(options, decision.protocol);
  const found = new Map<StreamType, SpdyStream>();
  let waiting = true;

  const session = new SpdySession(socket, head, (headers) => {
    const type = firstHeader(headers, 'streamType') as StreamType | undefined;
    if (!waiting || type === undefined || !expected.has(type) || found.has(type)) return undefined;
    return (stream) => {
      found.set(type, stream);
      if (found.size === expected.size) allThere();
    };
  }, sessionLimits);

  const timer = setTimeout(() => {
    // Go: "timed out waiting for client to create streams"; the connection is of no further use.
    waiting = false;
    session.close();
  }, streamCreationTimeoutMs);
  session.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });

  function allThere(): void {
    waiting = false;
    clearTimeout(timer);
    // expectedStreams always asks for the error stream, so it is among those found.
    const streams: RemoteCommandStreams = { error: found.get('error')! };
    for (const [type, stream] of found) streams[type] = stream;
    run(new SpdyRemoteCommandSession(session, streams, options.tty, decision.ok && decision.protocol === 'v4.channel.k8s.io'));
  }
}
