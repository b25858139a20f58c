import { readJournal, type JournalContents } from '../../adapters/journal-file/reader.js';
import { KubeletError } from '../../domain/errors.js';
import type { CommandIo } from '../io.js';

/** Reads a log for a command: skipped lines reported on stderr; unreadable or foreign files → null (exit 2). */
export function readLogForCommand(path: string | undefined, command: string, io: CommandIo): JournalContents | null {
  if (!path) {
    io.stderr(`usage: kubelet-ts ${command} LOG\n`);
    return null;
  }
  try {
    const contents = readJournal(path);
    for (const s of contents.skipped) io.stderr(`${command}: skipped line ${s.line} of ${s.file}: ${s.reason}\n`);
    return contents;
  } catch (err) {
    const message = err instanceof KubeletError ? err.message : String(err);
    io.stderr(`${command}: ${message}\n`);
    return null;
  }
}
