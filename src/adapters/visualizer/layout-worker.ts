/**
 * Lays charts out off the kubelet's event loop: elkjs takes a second or more for the supervisor,
 * and a page opened during a stuck start-up must not stall the start-up it is watching. The main
 * thread sends a StateGraph (plain data) and gets the SVG text back.
 */
import { parentPort } from 'node:worker_threads';
import type { StateGraph } from '../../domain/graph/model.js';
import { layoutChart } from './layout.js';
import { chartSvg } from './svg.js';

parentPort?.on('message', (msg: { id: number; graph: StateGraph }) => {
  layoutChart(msg.graph).then(
    (chart) => parentPort!.postMessage({ id: msg.id, svg: chartSvg(chart) }),
    (err: unknown) => parentPort!.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
