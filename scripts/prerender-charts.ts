/**
 * Lays every machine of the system out once, at build time, into dist/charts/ (see
 * src/adapters/visualizer/prerendered-charts.ts for why). Part of `npm run build`.
 */
import { renderInProcess } from '../src/adapters/visualizer/chart-renderer.js';
import { PRERENDERED_DIR, writePrerenderedCharts } from '../src/adapters/visualizer/prerendered-charts.js';
import { machineGraphs } from '../src/machines/index.js';

const graphs = machineGraphs();
const charts = [];
for (const graph of graphs) charts.push({ graph, svg: await renderInProcess(graph) });
writePrerenderedCharts(PRERENDERED_DIR, charts);
process.stdout.write(`prerender-charts: ${charts.length} charts in ${PRERENDERED_DIR}\n`);
