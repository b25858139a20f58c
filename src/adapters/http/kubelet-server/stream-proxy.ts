/**
 * The kubelet's side of an exec, attach or port-forward session: the client's upgrade request is
 * passed to the runtime's streaming URL and, once the runtime has switched protocols, the two
 * connections are joined byte for byte. This is Go's kubelet since the streaming redirect was
 * removed (proxy.UpgradeAwareHandler with upgradeRequired): it knows nothing of SPDY or WebSocket,
 * so both pass, and so does whatever subprotocol version client and runtime agree on.
 *
 * As Go's handler does:
 * - the request goes out with the client's method and headers (Connection/Upgrade,
 *   X-Stream-Protocol-Version, Sec-WebSocket-*), `X-Forwarded-For` extended by the client's address,
 *   to the runtime URL's path and query (the session is named there, not by the client's query);
 * - the runtime's 101 is relayed as it came, then the bytes either side sent after the headers;
 * - a runtime answer of 400 or above is relayed to the client and the connection closed; any other
 *   non-101 answer is a 500 `invalid upgrade response: status code N`; a runtime that cannot be
 *   reached a 500 `error dialing backend: …`;
 * - when either side ends, both are ended.
 * Where we differ: the client's `Authorization` header is not passed on (the runtime has no use for
 * the kubelet's credentials), and a joined connection silent both ways for the idle timeout
 * (streamingConnectionIdleTimeout; Go's proxy applies none itself) is closed.
 */
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions as HttpsRequestOptions } from 'node:https';
import type { Duplex } from 'node:stream';
import type { Logger } from '../../../log.js';
import { writeRawHttpError } from '../../stream-protocols/raw-http-error.js';
import type { UpgradedConnection } from './upgrade-requests.js';

export interface StreamProxyOptions {
  /** A joined connection with no bytes either way for this long is closed; 0: never. */
  idleTimeoutMs: number;
  logger?: Logger;
  /** For an https URL: the client certificate to present and how to check the server's (defaults: none, Node's CAs). */
  tls?: Pick<HttpsRequestOptions, 'cert' | 'key' | 'ca' | 'rejectUnauthorized'>;
  /**
   * Writes the proxy's own refusals (the runtime unreachable, or not upgrading) on the client's
   * socket. Default: plain text, as Go's kubelet answers; an API server answers a Status object.
   */
  refuse?: (socket: Duplex, status: number, message: string) => void;
}

/** A runtime's error answer is relayed up to this size (Go copies it all, within 10 s). */
const MAX_RELAYED_BODY = 64 * 1024;
/** An ended connection whose peer does not close its side is destroyed after this long. */
const CLOSE_GRACE_MS = 10_000;


function forwardedHeaders(req: IncomingMessage, target: URL): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = { ...req.headers, host: target.host };
  delete headers.authorization;
  const client = req.socket.remoteAddress;
  if (client) headers['x-forwarded-for'] = headers['x-forwarded-for'] ? `${String(headers['x-forwarded-for'])}, ${client}` : client;
  return headers;
}

/** The status line and headers of the runtime's answer, as the runtime sent them. */
function rawHead(res: IncomingMessage, headers: readonly string[] = res.rawHeaders): Buffer {
  let text = `HTTP/1.1 ${res.statusCode ?? 0} ${res.statusMessage ?? ''}\r\n`;
  for (let i = 0; i + 1 < headers.length; i += 2) text += `${headers[i]}: ${headers[i + 1]}\r\n`;
  return Buffer.from(`${text}\r\n`);
}

/** The runtime's error answer, body read (bounded) and re-framed with a length, then the end. */
function relayErrorAnswer(res: IncomingMessage, socket: Duplex): void {
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (c: Buffer) => {
    if (size < MAX_RELAYED_BODY) chunks.push(c);
    size += c.length;
  });
  const relay = () => {
    const body = Buffer.concat(chunks).subarray(0, MAX_RELAYED_BODY);
    const framing = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);
    const kept: string[] = [];
    for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
      if (!framing.has(res.rawHeaders[i]!.toLowerCase())) kept.push(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
    }
    kept.push('Content-Length', String(body.length), 'Connection', 'close');
    socket.end(Buffer.concat([rawHead(res, kept), body]));
  };
  res.once('end', relay);
  res.once('error', relay);
}

function endGracefully(socket: Duplex): void {
  if (socket.destroyed) return;
  socket.end();
  setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
}

/** Joins the two connections until either ends, fails, or both are silent for the idle timeout. */
function join(client: Duplex, runtime: Duplex, opts: StreamProxyOptions): void {
  client.pipe(runtime, { end: false });
  runtime.pipe(client, { end: false });
  let done = false;
  const finish = (how: 'ended' | 'failed' | 'idle') => {
    if (done) return;
    done = true;
    opts.logger?.debug({ how }, 'Streaming connection closed');
    if (how === 'ended') {
      endGracefully(client);
      endGracefully(runtime);
    } else {
      client.destroy();
      runtime.destroy();
    }
  };
  for (const side of [client, runtime]) {
    side.once('end', () => finish('ended'));
    side.once('close', () => finish('ended'));
    side.once('error', () => finish('failed'));
  }
  // Every byte relayed is read on one socket and written on the other, so the client's socket sees
  // the traffic of both directions: its timeout is the connection's idleness.
  const socket = client as Duplex & { setTimeout?: (ms: number, cb?: () => void) => void };
  socket.setTimeout?.(opts.idleTimeoutMs);
  if (opts.idleTimeoutMs > 0) client.once('timeout', () => finish('idle'));
}

/** Proxies the upgraded client connection to the runtime's streaming URL. */
export function proxyStream(req: IncomingMessage, client: UpgradedConnection, target: URL, opts: StreamProxyOptions): void {
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const upstream = send({
    hostname: target.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: target.port || (target.protocol === 'https:' ? 443 : 80),
    path: `${target.pathname}${target.search}`,
    method: req.method,
    headers: forwardedHeaders(req, target),
    agent: false,
    ...(target.protocol === 'https:' ? opts.tls : {}),
  });
  const refuse = opts.refuse ?? writeRawHttpError;
  let answered = false;
  const gone = () => { if (!answered) upstream.destroy(); };
  client.socket.once('close', gone);

  upstream.once('upgrade', (res: IncomingMessage, runtime: Duplex, runtimeHead: Buffer) => {
    answered = true;
    client.socket.off('close', gone);
    client.socket.write(rawHead(res));
    if (runtimeHead.length > 0) client.socket.write(runtimeHead);
    if (client.head.length > 0) runtime.write(client.head);
    join(client.socket, runtime, opts);
  });
  upstream.once('response', (res: IncomingMessage) => {
    answered = true;
    const status = res.statusCode ?? 0;
    if (status >= 400) return relayErrorAnswer(res, client.socket);
    res.resume();
    opts.logger?.warn({ status }, 'Runtime streaming server did not upgrade the connection');
    refuse(client.socket, 500, `invalid upgrade response: status code ${status}`);
  });
  upstream.once('error', (err) => {
    if (answered || client.socket.destroyed) return;
    answered = true;
    opts.logger?.warn({ err }, 'Runtime streaming server unreachable');
    refuse(client.socket, 500, `error dialing backend: ${err.message}`);
  });
  upstream.end();
}
