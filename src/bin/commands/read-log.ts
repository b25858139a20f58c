import { openJournal, readJournal, type JournalContents, type OpenJournal, type SkippedLine } from '../../adapters/journal-file/reader.js';
import { KubeletError } from '../../domain/errors.js';
import type { RecordPass } from '../../domain/explain/explain.js';
import type { CommandIo } from '../io.js';

/** Reads a log for a command: skipped lines reported on stderr; unreadable or foreign files → null (exit 2). */
export function readLogForCommand(path: string | undefined, command: string, io: CommandIo): JournalContents | null {
  if (!path) {
    io.stderr(`usage: kubelet-ts ${command} LOG\n`);
    return null;
  }
  try {
    const contents = readJournal(path);
    reportSkipped(contents.skipped, command, io);
    return contents;
  } catch (err) {
    reportUnreadable(err, command, io);
    return null;
  }
}

/**
 * Streams a log for a command that reads it in passes, keeping only what it needs (`explain`): `use`
 * gets the passes and its answer is returned. Skipped lines are reported once; a log that cannot be
 * read, in any pass → null (exit 2). What `use` throws outside a pass is its own and goes on up.
 */
export function streamLogForCommand<T>(path: string, command: string, io: CommandIo, use: (pass: RecordPass) => T): T | null {
  let journal: OpenJournal;
  try {
    journal = openJournal(path);
  } catch (err) {
    reportUnreadable(err, command, io);
    return null;
  }
  try {
    let reported = false;
    return use((visit) => {
      let skipped: readonly SkippedLine[];
      try {
        skipped = journal.forEachRecord(visit).skipped;
      } catch (err) {
        throw new Unreadable(err);
      }
      if (!reported) reportSkipped(skipped, command, io);
      reported = true;
    });
  } catch (err) {
    if (!(err instanceof Unreadable)) throw err;
    reportUnreadable(err.reason, command, io);
    return null;
  } finally {
    journal.close();
  }
}

/** What a pass threw: the log could not be read. */
class Unreadable {
  constructor(readonly reason: unknown) {}
}

function reportSkipped(skipped: readonly SkippedLine[], command: string, io: CommandIo): void {
  for (const s of skipped) io.stderr(`${command}: skipped line ${s.line} of ${s.file}: ${s.reason}\n`);
}

function reportUnreadable(err: unknown, command: string, io: CommandIo): void {
  const message = err instanceof KubeletError ? err.message : String(err);
  io.stderr(`${command}: ${message}\n`);
}
