/**
 * A pod's story from a journal file and its rotated segments, told from redacted records: what the
 * debug server's explain worker runs (explain-worker.ts), and in-process when it is not built.
 */
import { explainPod } from '../../domain/explain/explain.js';
import type { PodNotFound, Story } from '../../domain/explain/story.js';
import { redactEnvValues } from '../../domain/journal/redact-env-values.js';
import { readJournal } from '../journal-file/reader.js';

export function explainLog(path: string, query: string): Story | PodNotFound {
  return explainPod(readJournal(path).records.map(redactEnvValues), query);
}
