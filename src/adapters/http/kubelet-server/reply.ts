/**
 * How the kubelet server's routes answer: a status, a content type, headers and a body that is a
 * string, a Buffer or a stream. A string or Buffer goes with its Content-Length; a stream is piped
 * (chunked unless the route gives the length) and destroyed when the client goes or the answer
 * fails part way, which is how a log follow learns that its reader left.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { pipeline, type Readable } from 'node:stream';

export const TEXT_PLAIN = 'text/plain; charset=utf-8';
export const APPLICATION_JSON = 'application/json';

export type ReplyBody = string | Buffer | Readable | undefined;

export interface ReplyOptions {
  /** Content-Type; none when absent. */
  type?: string;
  headers?: OutgoingHttpHeaders;
  /** Called when a streamed body fails after the head was sent (the answer is cut short then). */
  onStreamError?: (err: Error) => void;
}

export function reply(res: ServerResponse, status: number, body: ReplyBody, opts: ReplyOptions = {}): void {
  const headers: OutgoingHttpHeaders = { ...opts.headers };
  if (opts.type) headers['content-type'] = opts.type;
  if (body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) {
    const bytes = body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    headers['content-length'] = bytes;
    res.writeHead(status, headers);
    res.end(body);
    return;
  }
  res.writeHead(status, headers);
  if (res.req.method === 'HEAD') {
    body.destroy();
    res.end();
    return;
  }
  pipeline(body, res, (err) => {
    if (err && err.code !== 'ERR_STREAM_PREMATURE_CLOSE') opts.onStreamError?.(err);
  });
}

/** Plain text, as every refusal and error of this server is worded. */
export function replyText(res: ServerResponse, status: number, text: string): void {
  reply(res, status, text, { type: TEXT_PLAIN });
}

/** A value as JSON (already serialised when a string or Buffer). */
export function replyJson(res: ServerResponse, value: unknown, status = 200): void {
  const body = typeof value === 'string' || Buffer.isBuffer(value) ? value : JSON.stringify(value);
  reply(res, status, body, { type: APPLICATION_JSON });
}
