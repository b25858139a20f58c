/**
 * The visualizer's routes on the debug server: the page at `/`, its script and styles (served
 * here: no request leaves the machine), one SVG chart per machine kind, the journal records kept
 * (`/debug/journal/records`), their live stream (`/debug/journal/stream`, server-sent events),
 * and the start-up report (`/debug/startup`, the same function as `kubelet-ts report`).
 *
 * Live (the daemon) and replay (`kubelet-ts visualize LOG`) serve the same page; `mode` tells it
 * whether to poll /debug/actors and follow the stream, or to fold the recorded log under a scrubber.
 */
import type { FastifyInstance } from 'fastify';
import type { StateGraph } from '../../domain/graph/model.js';
import { startupReport } from '../../domain/journal/report.js';
import { createChartRenderer, type ChartRenderer } from '../visualizer/chart-renderer.js';
import { PAGE_HTML } from '../visualizer/page.js';
import { prerenderedCharts, type PrerenderedLookup } from '../visualizer/prerendered-charts.js';
import { PAGE_SCRIPT } from '../visualizer/client-script.js';
import { PAGE_STYLES } from '../visualizer/styles.js';
import type { JournalFeedSource } from './journal-feed.js';
import { streamRecords, type SseStreamOptions } from './sse-stream.js';

export interface VisualizerSources {
  mode: 'live' | 'replay';
  /** One per machine kind: the machine registry's, given by the composition root (the same `kubelet-ts graph` draws). */
  graphs: StateGraph[];
  /** Journal records; without it the page shows charts and actors but no stream or timeline. */
  feed?: JournalFeedSource;
  /** Shown in the page's title bar: node name, log file. */
  title?: string;
  stream?: SseStreamOptions;
  /** Graph → SVG; defaults to a layout worker thread (in-process when running from sources). */
  render?: ChartRenderer;
  /** Charts laid out at build time; defaults to dist/charts/. Consulted before `render`. */
  prerendered?: PrerenderedLookup;
}

export function registerVisualizer(app: FastifyInstance, sources: VisualizerSources): void {
  const { graphs } = sources;
  // Charts come from the build (dist/charts/) when it drew this very graph. Otherwise layout takes
  // a second or two for the supervisor: done once per machine, on first request, off the event loop
  // (see chart-renderer.ts). A failed layout is not cached, so a reload retries.
  const prerendered = sources.prerendered ?? prerenderedCharts();
  const render = sources.render ?? createChartRenderer();
  const svgs = new Map<string, Promise<string>>();
  const svgOf = (g: StateGraph) => {
    let p = svgs.get(g.machine);
    if (!p) {
      const stored = prerendered(g);
      p = stored !== undefined ? Promise.resolve(stored) : render(g);
      svgs.set(g.machine, p);
      p.catch(() => svgs.delete(g.machine));
    }
    return p;
  };

  app.get('/', async (_req, reply) => reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(PAGE_HTML));
  app.get('/visualizer/app.js', async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(PAGE_SCRIPT));
  app.get('/visualizer/app.css', async (_req, reply) => reply.type('text/css; charset=utf-8').send(PAGE_STYLES));
  app.get('/visualizer/info', async () => ({
    mode: sources.mode,
    title: sources.title ?? null,
    machines: graphs.map((g) => g.machine),
    journal: sources.feed !== undefined,
  }));
  app.get<{ Params: { machine: string } }>('/visualizer/charts/:machine', async (req, reply) => {
    const name = req.params.machine.replace(/\.svg$/, '');
    const g = graphs.find((x) => x.machine === name);
    if (!g) return reply.code(404).send({ error: `no machine named ${name}` });
    return reply.type('image/svg+xml; charset=utf-8').send(await svgOf(g));
  });
  app.get<{ Querystring: { upTo?: string } }>('/debug/journal/records', async (req, reply) => {
    if (!sources.feed) return reply.code(404).send({ error: 'the journal is not connected to the debug server' });
    return { records: upTo(sources.feed.history(), req.query.upTo) };
  });
  app.get<{ Querystring: { upTo?: string } }>('/debug/startup', async (req, reply) => {
    if (!sources.feed) return reply.code(404).send({ error: 'the journal is not connected to the debug server' });
    return startupReport(upTo(sources.feed.history(), req.query.upTo));
  });
  app.get('/debug/journal/stream', (req, reply) => {
    if (!sources.feed) {
      void reply.code(404).send({ error: 'the journal is not connected to the debug server' });
      return;
    }
    reply.hijack();
    // The server's idle timeout (connectionTimeout) is for requests; a stream is idle by nature.
    req.raw.socket.setTimeout(0);
    streamRecords(reply.raw, sources.feed, sources.stream);
  });
}

/** Records up to and including seq `upTo` (the scrubber's position), or all. */
function upTo<T extends { seq: number }>(records: T[], q: string | undefined): T[] {
  const n = q === undefined ? NaN : Number(q);
  return Number.isFinite(n) ? records.filter((r) => r.seq <= n) : records;
}
