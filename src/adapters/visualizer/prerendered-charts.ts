/**
 * Charts laid out at build time (`npm run build` runs scripts/prerender-charts.ts into dist/charts/).
 * A machine's graph only changes when its definition does, so the daemon need not run elkjs at all:
 * a page opened on a busy node gets its charts from files instead of a layout worker competing with
 * the kubelet for two cores. Each file is keyed by a fingerprint of the graph it was drawn from, so
 * a stale file (sources changed, dist not rebuilt) is never served: that graph is laid out live.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StateGraph } from '../../domain/graph/model.js';

/**
 * dist/charts/: where the build writes them and the daemon reads them, found by walking up to dist/
 * from tsc's output (dist/src/adapters/visualizer/) and from the bundled binary (dist/bundle/)
 * alike. From the TypeScript sources (vitest) no dist/ is above: a directory that does not exist,
 * so every chart is laid out live.
 */
export const PRERENDERED_DIR = chartsDirAbove(dirname(fileURLToPath(import.meta.url)));

function chartsDirAbove(moduleDir: string): string {
  for (let dir = moduleDir; dirname(dir) !== dir; dir = dirname(dir)) {
    if (basename(dir) === 'dist') return join(dir, 'charts');
  }
  return join(moduleDir, 'charts');
}
const INDEX = 'index.json';

type ChartIndex = Record<string, { fingerprint: string; file: string }>;

export function graphFingerprint(graph: StateGraph): string {
  return createHash('sha256').update(JSON.stringify(graph)).digest('hex');
}

export function writePrerenderedCharts(dir: string, charts: { graph: StateGraph; svg: string }[]): void {
  mkdirSync(dir, { recursive: true });
  const index: ChartIndex = {};
  for (const { graph, svg } of charts) {
    const file = `${graph.machine}.svg`;
    writeFileSync(join(dir, file), svg);
    index[graph.machine] = { fingerprint: graphFingerprint(graph), file };
  }
  writeFileSync(join(dir, INDEX), `${JSON.stringify(index, null, 2)}\n`);
}

/** The stored SVG for this very graph, or undefined (none stored, or drawn from another version). */
export type PrerenderedLookup = (graph: StateGraph) => string | undefined;

export function prerenderedCharts(dir: string = PRERENDERED_DIR): PrerenderedLookup {
  let index: ChartIndex | null = null;
  return (graph) => {
    if (index === null) {
      try {
        index = JSON.parse(readFileSync(join(dir, INDEX), 'utf8')) as ChartIndex;
      } catch {
        // No build output beside us (running from sources): every chart is laid out live.
        index = {};
      }
    }
    const entry = index[graph.machine];
    if (!entry || entry.fingerprint !== graphFingerprint(graph)) return undefined;
    try {
      return readFileSync(join(dir, entry.file), 'utf8');
    } catch {
      return undefined;
    }
  };
}
