/**
 * The debug server: started in `command.debugServer`, before every other phase, because a stuck
 * start-up is exactly when it is needed. Loopback only (`--debug-address`, default 127.0.0.1:10260;
 * empty turns it off; in cluster mode off unless given: actors/phases/settings.ts). Serves
 * `/debug/actors` (every live actor and its state), `/debug/journal/stats`, a pod's story
 * (`/debug/explain/<namespace>/<name>`, explain-route.ts) and the visualizer
 * (the page at `/`, charts, journal stream, start-up timeline; see visualizer-routes.ts). Any local
 * user can ask, so the daemon hands it journal records without literal env values (server-starters.ts).
 *
 * It is optional: when its address cannot be bound (another process on 10260), start-up goes on,
 * the failure is logged with the address and reason, and the bind is retried in the background
 * (listen-fastify.ts). Go has no debug server of its own (pprof lives on 10250).
 */
import { isIPv4, isIPv6 } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { KubeletError } from '../../domain/errors.js';
import type { RunningServer } from '../http/listen.js';
import { explainPod } from '../../domain/explain/explain.js';
import { registerExplain, type ExplainPod } from './explain-route.js';
import { listenFastify, listenFastifyOrRetry } from './listen-fastify.js';
import { registerVisualizer, type VisualizerSources } from './visualizer-routes.js';

export interface DebugServerSources {
  actors: () => unknown[];
  /** The pods the syncLoop knows, with their latest status. */
  pods: () => unknown;
  journal: () => { path: string | null; records: number };
  /** The visualizer's sources; without them the page is live, with no machines and no journal. */
  visualizer?: VisualizerSources;
  /** The whole journal, for `/debug/explain`; without it, the visualizer's feed (a recorded log's is whole). */
  explain?: ExplainPod;
}

/** The debug server: the same shape as every server of ours, and whether it is bound yet. */
export type DebugServer = RunningServer & {
  /** False when the address was taken at start: the server is retrying in the background. */
  readonly listening: boolean;
};

export function buildDebugApp(sources: DebugServerSources): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 1024, connectionTimeout: 10_000, requestTimeout: 10_000 });
  app.get('/debug/actors', async () => ({ actors: sources.actors() }));
  app.get('/debug/journal/stats', async () => sources.journal());
  app.get('/debug/pods', async () => sources.pods());
  registerVisualizer(app, sources.visualizer ?? { mode: 'live', graphs: [] });
  const feed = sources.visualizer?.feed;
  registerExplain(app, sources.explain ?? (feed ? async (query) => explainPod(feed.history(), query) : undefined));
  return app;
}

/** A loopback address, written as an address: a name could be made to resolve elsewhere. */
function isLoopback(host: string): boolean {
  if (isIPv4(host)) return host.startsWith('127.');
  return isIPv6(host) && (host === '::1' || /^(0{0,4}:){7}0{0,3}1$/.test(host) || /^::ffff:127\./i.test(host));
}

/** host:port, the host a loopback address: the server has no authentication, so no other machine may reach it. */
export function parseDebugAddress(address: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:]+):(\d{1,5})$/.exec(address);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) {
    throw new KubeletError('KLT_ERR_FLAG_INVALID', `--debug-address ${JSON.stringify(address)}: want host:port, e.g. 127.0.0.1:10260`);
  }
  const host = m[1]!.replace(/^\[|\]$/g, '');
  if (!isLoopback(host)) {
    throw new KubeletError('KLT_ERR_FLAG_INVALID', `--debug-address ${JSON.stringify(address)}: ${host} is not a loopback address; the debug server has no authentication and listens on 127.0.0.0/8 or ::1 only`);
  }
  return { host, port };
}

/**
 * Without `retry`, a bind failure is an error (the `visualize` command, which serves nothing else);
 * with it, the kubelet's debug server starts unbound and keeps trying.
 */
export async function startDebugServer(address: string, sources: DebugServerSources, retry?: { logger: Logger }): Promise<DebugServer> {
  const { host, port } = parseDebugAddress(address);
  const app = buildDebugApp(sources);
  if (retry) return listenFastifyOrRetry(app, host, port, { what: 'debug server', logger: retry.logger });
  return { ...(await listenFastify(app, { host, port, what: '--debug-address', retryable: false })), listening: true };
}
