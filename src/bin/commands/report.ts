/**
 * `kubelet-ts report LOG [--json]`: the start-up as a table (every phase with start offset,
 * duration and outcome, the critical path, what a waiting phase waits on). Works on a live
 * daemon's log too: a phase still running shows as inProgress.
 *
 * `kubelet-ts report --compare BASELINE LOG [--max-ratio R] [--max-added-ms MS] [--json]`: two
 * start-ups side by side, exit 1 when LOG's regressed against BASELINE's (report-compare.ts);
 * several of each (`--compare B1 --compare B2 L1 L2`) are taken at their fastest (startup-fastest.ts).
 */
import { formatReport, startupReport } from '../../domain/journal/report.js';
import type { CommandIo } from '../io.js';
import { commandArgsOrExit } from './command-args.js';
import { readLogForCommand } from './read-log.js';
import { runReportCompare } from './report-compare.js';

export const REPORT_USAGE = `usage: kubelet-ts report LOG [--json]
       kubelet-ts report --compare BASELINE [--compare BASELINE...] LOG [LOG...]
                         [--max-ratio R] [--max-added-ms MS] [--max-ready-added-ms MS] [--json]

--compare BASELINE       compare LOG's start-up with BASELINE's, phase by phase, and the time to
                         Ready (Node Ready in cluster mode, else the sync loop's first sync of pods).
                         A phase regressed when it grew by more than --max-added-ms AND to more
                         than --max-ratio times the baseline's (both: a 1 ms phase that takes 3 ms
                         is noise); the time to Ready likewise, by --max-ready-added-ms and
                         --max-ratio. A phase that failed, a start-up that did not reach running
                         or never became Ready regressed too.
                         With several recordings a side, each phase's shortest duration and the
                         earliest Ready of each side are compared: noise only adds time.
                         Exit 0: no regression; 1: regressed (each named); 2: a log unreadable or
                         without a start-up.
--max-ratio R            (default 1.5)
--max-added-ms MS        (default 350)
--max-ready-added-ms MS  (default 1000)
--json                   the report (or the comparison) as JSON
`;

/** Recordings a side of a comparison, at most: a bound on the command line, not a figure. */
const MAX_LOGS = 64;

export async function runReportCommand(argv: string[], io: CommandIo): Promise<number> {
  const args = commandArgsOrExit(argv, {
    json: { type: 'boolean' },
    compare: { type: 'string', multiple: true },
    'max-ratio': { type: 'string' },
    'max-added-ms': { type: 'string' },
    'max-ready-added-ms': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  }, MAX_LOGS, { name: 'report', usage: REPORT_USAGE, io });
  if (typeof args === 'number') return args;
  const json = args.values.json === true;
  const { compare } = args.values;
  if (compare !== undefined) {
    return runReportCompare({ baselinePaths: compare, currentPaths: args.positionals, json, maxRatio: args.values['max-ratio'], maxAddedMs: args.values['max-added-ms'], maxReadyAddedMs: args.values['max-ready-added-ms'] }, io);
  }
  if (args.values['max-ratio'] !== undefined || args.values['max-added-ms'] !== undefined || args.values['max-ready-added-ms'] !== undefined) {
    io.stderr(`report: --max-ratio, --max-added-ms and --max-ready-added-ms go with --compare\n${REPORT_USAGE}`);
    return 2;
  }
  if (args.positionals.length > 1) {
    io.stderr(`report: unexpected argument: ${args.positionals[1]}\n${REPORT_USAGE}`);
    return 2;
  }
  const log = readLogForCommand(args.positionals[0], 'report', io);
  if (!log) return 2;
  const report = startupReport(log.records);
  io.stdout(json ? JSON.stringify({ header: log.header, ...report }, null, 2) + '\n' : formatReport(report) + '\n');
  return 0;
}
