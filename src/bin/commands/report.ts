/**
 * `kubelet-ts report LOG [--json]`: the start-up as a table (every phase with start offset,
 * duration and outcome, the critical path, what a waiting phase waits on). Works on a live
 * daemon's log too: a phase still running shows as inProgress.
 */
import { formatReport, startupReport } from '../../domain/journal/report.js';
import type { CommandIo } from '../io.js';
import { readLogForCommand } from './read-log.js';

export async function runReportCommand(argv: string[], io: CommandIo): Promise<number> {
  const json = argv.includes('--json');
  const rest = argv.filter((a) => a !== '--json');
  const unknown = rest.filter((a) => a.startsWith('-'));
  if (unknown.length > 0 || rest.length > 1) {
    io.stderr(`report: unexpected ${[...unknown, ...rest.slice(1)].join(' ')}\nusage: kubelet-ts report LOG [--json]\n`);
    return 2;
  }
  const log = readLogForCommand(rest[0], 'report', io);
  if (!log) return 2;
  const report = startupReport(log.records);
  io.stdout(json ? JSON.stringify({ header: log.header, ...report }, null, 2) + '\n' : formatReport(report) + '\n');
  return 0;
}
