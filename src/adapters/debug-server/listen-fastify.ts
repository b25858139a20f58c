/**
 * The debug server is the one server of ours on fastify: its app listens through fastify (so its
 * own shutdown, ending the visualizer's long responses, runs on close) but binds, reports and
 * retries as every other server does (http/listen.ts, http/listen-or-retry.ts).
 */
import type { FastifyInstance } from 'fastify';
import { boundAddress, listenError, type ListenWhere, type RunningServer } from '../http/listen.js';
import { listenOrRetry, type OptionalServer, type RetryOptions } from '../http/listen-or-retry.js';

/** Listens on host:port; a failure closes the app and becomes KLT_ERR_HOST_IO (see listen.ts). */
export async function listenFastify(app: FastifyInstance, where: ListenWhere): Promise<RunningServer> {
  try {
    await app.listen({ host: where.host, port: where.port });
  } catch (err) {
    await app.close();
    throw listenError(err, where);
  }
  return { address: boundAddress(app.server, where), close: () => app.close() };
}

/** listenOrRetry for a fastify app: made ready once, its Node server re-listened on each attempt. */
export async function listenFastifyOrRetry(app: FastifyInstance, host: string, port: number, opts: RetryOptions): Promise<OptionalServer> {
  await app.ready();
  // fastify closes only a server it listened itself; its onClose hooks end long responses first.
  return listenOrRetry(app.server, host, port, { ...opts, beforeClose: () => app.close() });
}
