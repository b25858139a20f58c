/**
 * State graph → SVG, on a worker thread when the compiled worker is there (the daemon, from
 * dist/), in-process otherwise (tests running the TypeScript sources). One worker, started on the
 * first chart asked for, referenced only while a layout is pending.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { StateGraph } from '../../domain/graph/model.js';
import { layoutChart } from './layout.js';
import { chartSvg } from './svg.js';

export type ChartRenderer = (graph: StateGraph) => Promise<string>;

export const renderInProcess: ChartRenderer = async (graph) => chartSvg(await layoutChart(graph));

export function createChartRenderer(): ChartRenderer {
  const workerFile = fileURLToPath(new URL('./layout-worker.js', import.meta.url));
  if (!existsSync(workerFile)) return renderInProcess;
  let worker: Worker | null = null;
  let nextId = 0;
  const pending = new Map<number, { resolve: (svg: string) => void; reject: (err: Error) => void }>();
  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
    worker = null;
  };
  return (graph) => {
    if (!worker) {
      worker = new Worker(workerFile);
      worker.on('message', (m: { id: number; svg?: string; error?: string }) => {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (pending.size === 0) worker?.unref();
        if (m.svg !== undefined) p?.resolve(m.svg);
        else p?.reject(new Error(m.error ?? 'layout failed'));
      });
      worker.on('error', failAll);
      worker.on('exit', () => failAll(new Error('layout worker exited')));
    }
    const id = nextId++;
    const w = worker;
    return new Promise<string>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      // Referenced only while a layout is pending: an idle worker never keeps the process alive.
      w.ref();
      w.postMessage({ id, graph });
    });
  };
}
