/**
 * `kubelet-ts report LOG [--json]`: the start-up as a table (every phase with start offset,
 * duration and outcome, the critical path, what a waiting phase waits on). Works on a live
 * daemon's log too: a phase still running shows as inProgress.
 */
import { formatReport, startupReport } from '../../domain/journal/report.js';
import type { CommandIo } from '../io.js';
import { commandArgsOrExit } from './command-args.js';
import { readLogForCommand } from './read-log.js';

export async function runReportCommand(argv: string[], io: CommandIo): Promise<number> {
  const args = commandArgsOrExit(argv, { json: { type: 'boolean' } }, 1, { name: 'report', usage: 'usage: kubelet-ts report LOG [--json]\n', io });
  if (typeof args === 'number') return args;
  const json = args.values.json === true;
  const log = readLogForCommand(args.positionals[0], 'report', io);
  if (!log) return 2;
  const report = startupReport(log.records);
  io.stdout(json ? JSON.stringify({ header: log.header, ...report }, null, 2) + '\n' : formatReport(report) + '\n');
  return 0;
}
