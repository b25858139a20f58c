/**
 * `/debug/explain` on a live node. The visualizer's feed keeps only the last records, while a pod's
 * story goes back to its admission: so the run's event log is read from its files (the current
 * segment and every rotated one still kept; a log whose first segments are gone starts at its first
 * record and the story says so), after the sink has written what it holds. With the journal off
 * there are no files, and the story is told from the records kept in memory.
 *
 * The read is proportional to the log, so it runs on a worker thread when the built worker is there
 * (the daemon), one request at a time: any local user may ask, and the node must not pay for it.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { explainPod } from '../../domain/explain/explain.js';
import type { PodNotFound, Story } from '../../domain/explain/story.js';
import { explainLog } from './explain-log.js';
import type { ExplainPod } from './explain-route.js';
import type { JournalFeedSource } from './journal-feed.js';

export interface LiveJournalSources {
  /** The run's event log file, once it is open; null before, or when the journal is off. */
  path: () => string | null;
  /** Resolves when every record appended so far is in the file. */
  flush: () => Promise<void>;
  /** What is kept in memory (redacted): the fallback without a file. */
  kept: JournalFeedSource;
}

export function liveExplainer(s: LiveJournalSources): ExplainPod {
  const workerFile = fileURLToPath(new URL('./explain-worker.js', import.meta.url));
  const fromFile = existsSync(workerFile) ? (path: string, query: string) => explainInWorker(workerFile, path, query) : async (path: string, query: string) => explainLog(path, query);
  let previous: Promise<unknown> = Promise.resolve();
  return (query) => {
    const answer = previous.then(async () => {
      const path = s.path();
      if (path === null) return explainPod(s.kept.history(), query);
      await s.flush();
      return fromFile(path, query);
    });
    previous = answer.catch(() => undefined);
    return answer;
  };
}

function explainInWorker(workerFile: string, path: string, query: string): Promise<Story | PodNotFound> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerFile, { workerData: { path, query } });
    worker.once('message', (m: { answer?: Story | PodNotFound; error?: string }) => {
      if (m.answer) resolve(m.answer);
      else reject(new Error(m.error ?? 'the explain worker gave no answer'));
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the explain worker exited (code ${code})`)));
  });
}
