/**
 * The debug server: started in `command.debugServer`, before every other phase, because a stuck
 * start-up is exactly when it is needed. Loopback by default (`--debug-address`, default
 * 127.0.0.1:10260; empty turns it off). Serves `/debug/actors` (every live actor and its state)
 * and `/debug/journal/stats`, and the visualizer (issue 8: the page at `/`, charts, journal stream,
 * start-up timeline; see visualizer-routes.ts).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { KubeletError } from '../../domain/errors.js';
import { listenAndReport, type RunningServer } from '../http/listen.js';
import { registerVisualizer, type VisualizerSources } from './visualizer-routes.js';

export interface DebugServerSources {
  actors: () => unknown[];
  /** The pods the syncLoop knows, with their latest status. */
  pods: () => unknown;
  journal: () => { path: string | null; records: number };
  /** The visualizer's sources; without them the page is live, with the known machines and no journal. */
  visualizer?: VisualizerSources;
}

/** The debug server once it listens: the same shape as every server of ours. */
export type DebugServer = RunningServer;

export function buildDebugApp(sources: DebugServerSources): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 1024, connectionTimeout: 10_000, requestTimeout: 10_000 });
  app.get('/debug/actors', async () => ({ actors: sources.actors() }));
  app.get('/debug/journal/stats', async () => sources.journal());
  app.get('/debug/pods', async () => sources.pods());
  registerVisualizer(app, sources.visualizer ?? { mode: 'live' });
  return app;
}

export function parseDebugAddress(address: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:]+):(\d{1,5})$/.exec(address);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) {
    throw new KubeletError('KLT_ERR_FLAG_INVALID', `--debug-address ${JSON.stringify(address)}: want host:port, e.g. 127.0.0.1:10260`);
  }
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

export async function startDebugServer(address: string, sources: DebugServerSources): Promise<DebugServer> {
  const { host, port } = parseDebugAddress(address);
  return listenAndReport(buildDebugApp(sources), { host, port, what: '--debug-address', retryable: false });
}
