/**
 * Reads a live node's journal and tells one pod's story off the kubelet's event loop: a run's log
 * is up to 8 segments of 64 MiB, and reading it in the main thread, streamed or not, would stall
 * the probes, the lease and the syncs of the node a person is debugging. One worker per request.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { explainLog } from './explain-log.js';

const { path, query } = workerData as { path: string; query: string };
try {
  parentPort!.postMessage({ answer: explainLog(path, query) });
} catch (err) {
  parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err) });
}
