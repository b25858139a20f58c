/**
 * One piece of work on a worker thread of its own, for input that would hold the event loop (a
 * large manifest, a large CDI spec): the worker posts one answer and is ended. A worker that fails
 * or exits first answers through `failed`, with why, so the caller reports it as it reports a bad
 * input rather than throwing.
 */
import { Worker } from 'node:worker_threads';

export function oneShotWorker<T>(url: URL, workerData: unknown, failed: (why: string) => T): Promise<T> {
  return new Promise((resolve) => {
    const worker = new Worker(url, { workerData });
    let answered = false;
    const answer = (result: T) => {
      if (answered) return;
      answered = true;
      void worker.terminate();
      resolve(result);
    };
    worker.once('message', (result: T) => answer(result));
    worker.once('error', (err) => answer(failed(`failed: ${err.message}`)));
    worker.once('exit', (code) => answer(failed(`exited with code ${code}`)));
  });
}
