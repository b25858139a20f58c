/**
 * State graph → SVG, on a worker thread when the compiled worker is there (the daemon, from
 * dist/), in-process otherwise (tests running the TypeScript sources). One worker, started on the
 * first chart asked for, referenced only while a layout is pending.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { StateGraph } from '../../domain/graph/model.js';

export type ChartRenderer = (graph: StateGraph) => Promise<string>;

/** Lays out in this thread. elkjs is loaded on first use only: a kubelet nobody looks at never pays for it. */
export const renderInProcess: ChartRenderer = async (graph) => {
  const [{ layoutChart }, { chartSvg }] = await Promise.all([import('./layout.js'), import('./svg.js')]);
  return chartSvg(await layoutChart(graph));
};

/** How long a layout worker with nothing to do lives on (a page asks for every chart at once). */
export const WORKER_IDLE_MS = 10_000;

export function createChartRenderer(): ChartRenderer {
  const workerFile = fileURLToPath(new URL('./layout-worker.js', import.meta.url));
  if (!existsSync(workerFile)) return renderInProcess;
  let worker: Worker | null = null;
  let idleTimer: NodeJS.Timeout | null = null;
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
        if (pending.size === 0) {
          worker?.unref();
          // A worker is a V8 isolate with elkjs loaded, tens of MiB: let it go once the page has its charts.
          idleTimer = setTimeout(() => void worker?.terminate(), WORKER_IDLE_MS);
          idleTimer.unref();
        }
        if (m.svg !== undefined) p?.resolve(m.svg);
        else p?.reject(new Error(m.error ?? 'layout failed'));
      });
      worker.on('error', failAll);
      worker.on('exit', () => failAll(new Error('layout worker exited')));
    }
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
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
