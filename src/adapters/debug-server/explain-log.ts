/**
 * A pod's story from a journal file and its rotated segments, told from redacted records: what the
 * debug server's explain worker runs (explain-worker.ts), and in-process when it is not built. The
 * log is streamed, twice (explainPodInPasses): the daemon's memory holds one pod's history, not the log.
 */
import { explainPodInPasses } from '../../domain/explain/explain.js';
import type { PodNotFound, Story } from '../../domain/explain/story.js';
import { redactEnvValues } from '../../domain/journal/redact-env-values.js';
import { openJournal } from '../journal-file/reader.js';

export function explainLog(path: string, query: string): Story | PodNotFound {
  const journal = openJournal(path);
  try {
    return explainPodInPasses((visit) => {
      journal.forEachRecord((record) => visit(redactEnvValues(record)));
    }, query);
  } finally {
    journal.close();
  }
}
