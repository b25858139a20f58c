import type { JournalHeader, JournalRecord } from '../domain/journal/record.js';

/**
 * Where journal records go. `append` must never block the actor that produced the record: a file
 * sink buffers and writes in the background. `flush` resolves once everything appended so far is
 * on disk (SIGTERM awaits it).
 */
export interface JournalSink {
  open(header: JournalHeader): void;
  append(record: JournalRecord): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}
