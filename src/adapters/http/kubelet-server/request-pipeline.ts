/**
 * Every request to the kubelet server and the read-only server, in order:
 * 1. the path is decoded (a URL that does not decode is a 400);
 * 2. the turn budget (turn-budget.ts): a request that would hold the event loop past the turn's
 *    budget waits for a later turn, so the kubelet's own timers are not stuck behind a crowd;
 * 3. authentication and authorization (admission.ts), on the kubelet server;
 * 4. the body is read and dropped, 413 over the limit (body-limit.ts);
 * 5. the route: 404 `404 page not found` for a path no route has (Go's mux's words), 405 for a
 *    path that has routes for other methods only (go-restful's words);
 * 6. a route that fails: a 4xx error keeps its status and message, anything else is a logged 500
 *    `Internal Server Error`; after the head was sent, the connection is cut.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Logger } from 'pino';
import type { Admission } from './admission.js';
import { bodyWithin } from './body-limit.js';
import { replyText } from './reply.js';
import { pathSegments, type Router } from './router.js';
import type { TurnBudget } from './turn-budget.js';
import { upgradedConnection } from './upgrade-requests.js';

export interface PipelineOptions {
  router: Router;
  turns: TurnBudget;
  /** Absent: every request is let through (the read-only server). */
  admit?: Admission;
  bodyLimit: number;
  logger?: Logger;
}

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

function failed(err: unknown, res: ServerResponse, logger?: Logger): void {
  const { statusCode, message } = err as { statusCode?: unknown; message?: unknown };
  const status = typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500 ? statusCode : 500;
  if (status === 500) logger?.error({ err }, 'Kubelet server request failed');
  if (res.headersSent) res.destroy();
  else replyText(res, status, status === 500 ? 'Internal Server Error\n' : `${String(message)}\n`);
}

export function requestPipeline(o: PipelineOptions): RequestHandler {
  return async (req, res) => {
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    const rawPath = mark < 0 ? url : url.slice(0, mark);
    const segments = pathSegments(rawPath);
    if (!segments) return replyText(res, 400, `'${rawPath}' is not a valid url component\n`);
    try {
      const wait = o.turns.enter();
      if (wait) await wait;
      if (o.admit && !(await o.admit(req, res, segments.join('/')))) return;
      if (!upgradedConnection(req) && !(await bodyWithin(req, o.bodyLimit))) return replyText(res, 413, 'Request body is too large\n');
      const route = o.router.find(req.method ?? 'GET', segments);
      if (route === undefined) return replyText(res, 404, '404 page not found\n');
      if (route === 'wrongMethod') return replyText(res, 405, '405: Method Not Allowed\n');
      const query = mark < 0 ? {} : parseQuery(url.slice(mark + 1));
      await route.handler({ raw: req, params: route.params, query, rawPath }, res);
    } catch (err) {
      failed(err, res, o.logger);
    }
  };
}
