/**
 * A live node's whole journal for `/debug/explain`: the visualizer's feed keeps only the last
 * records, while a pod's story goes back to its admission. So the run's event log is read from its
 * files (the current segment and every rotated one still kept; the reader starts a rotated log at
 * its first checkpoint), after the sink has written what it holds. With the journal off there are
 * no files, and the story is told from the records the debug server keeps in memory.
 *
 * The read is synchronous and proportional to the log (segments are bounded, see file-sink.ts):
 * acceptable for a debugging request, never done on the kubelet's own paths.
 */
import type { JournalRecord } from '../../domain/journal/record.js';
import { readJournal } from '../journal-file/reader.js';
import type { ExplainRecords } from './explain-route.js';
import type { JournalFeedSource } from './journal-feed.js';

export interface JournalHistorySources {
  /** The run's event log file, once it is open; null before, or when the journal is off. */
  path: () => string | null;
  /** Resolves when every record appended so far is in the file. */
  flush: () => Promise<void>;
  /** What is kept in memory: the fallback without a file. */
  kept: JournalFeedSource;
  /** Applied to each record read (the debug server's redaction of env values). */
  map?: (record: JournalRecord) => JournalRecord;
}

export function journalHistory(s: JournalHistorySources): ExplainRecords {
  return async () => {
    const path = s.path();
    if (path === null) return s.kept.history();
    await s.flush();
    const { records } = readJournal(path);
    return s.map ? records.map(s.map) : records;
  };
}
