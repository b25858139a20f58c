/**
 * The kubelet server reads no request body (options come in the query), but a body still arrives
 * on the connection: it is read and dropped before the route answers, and one over the limit is
 * refused, so a client cannot keep the server reading for it.
 */
import type { IncomingMessage } from 'node:http';

/** Whether the request's body, read and dropped, stays within `limit` bytes (true when there is none). */
export function bodyWithin(req: IncomingMessage, limit: number): boolean | Promise<boolean> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return false;
  if ((declared === undefined || declared === '0') && req.headers['transfer-encoding'] === undefined) return true;
  if (req.readableEnded) return true;
  return new Promise((resolve) => {
    let size = 0;
    const settle = (within: boolean) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onEnd);
      // What is left of an oversized body is drained by Node, unread.
      req.resume();
      resolve(within);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) settle(false);
    };
    const onEnd = () => settle(size <= limit);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onEnd);
  });
}
