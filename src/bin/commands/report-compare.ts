/**
 * `report --compare BASELINE LOG`: reads both logs, compares their start-ups (report-compare.ts)
 * and answers with the exit code a CI step needs: 0 no regression, 1 regressed, 2 a log unreadable
 * or without a start-up, or a bad threshold. Several logs a side are taken at their fastest
 * (startup-fastest.ts).
 */
import type { JournalHeader } from '../../domain/journal/record.js';
import { compareStartups, type ComparedStartup, type CompareThresholds } from '../../domain/journal/report-compare.js';
import { formatComparison } from '../../domain/journal/report-compare-format.js';
import { startupReport } from '../../domain/journal/report.js';
import { fastestOf } from '../../domain/journal/startup-fastest.js';
import { readyMarks } from '../../domain/journal/startup-ready.js';
import type { CommandIo } from '../io.js';
import { readLogForCommand } from './read-log.js';

/**
 * Chosen from the spread of same-build start-ups on a busy 2-core machine (docs/reference/journal.md,
 * "Comparing two start-ups"): same-build pairs pass with room, a phase 500 ms slower fails.
 */
export const DEFAULT_THRESHOLDS: CompareThresholds = { maxRatio: 1.5, maxAddedMs: 350, maxReadyAddedMs: 1000 };

export interface ReportCompareOptions {
  baselinePaths: string[];
  currentPaths: string[];
  json: boolean;
  maxRatio: string | undefined;
  maxAddedMs: string | undefined;
  maxReadyAddedMs: string | undefined;
}

export function runReportCompare(o: ReportCompareOptions, io: CommandIo): number {
  const thresholds = parseThresholds(o, io);
  if (!thresholds) return 2;
  if (o.currentPaths.length === 0) {
    io.stderr('report: --compare BASELINE needs the LOG to compare with it\nusage: kubelet-ts report --compare BASELINE LOG\n');
    return 2;
  }
  const baselines = o.baselinePaths.map((path) => readStartup(path, io));
  const currents = o.currentPaths.map((path) => readStartup(path, io));
  if (baselines.includes(null) || currents.includes(null)) return 2;
  const baseline = fastestOf(baselines as ComparedStartup[]);
  const current = fastestOf(currents as ComparedStartup[]);
  const comparison = compareStartups(baseline, current, thresholds);
  io.stdout(o.json
    ? JSON.stringify({ baseline: sideOf(o.baselinePaths, baselines), current: sideOf(o.currentPaths, currents), ...comparison }, null, 2) + '\n'
    : recordingsLine(o) + formatComparison(comparison) + '\n');
  return comparison.regressions.length === 0 ? 0 : 1;
}

interface ReadStartup extends ComparedStartup {
  header: JournalHeader;
}

/** A log's start-up, or null after saying on stderr why it has none (unreadable, or no supervisor state). */
function readStartup(path: string, io: CommandIo): ReadStartup | null {
  const log = readLogForCommand(path, 'report', io);
  if (!log) return null;
  const report = startupReport(log.records);
  if (report.finalState === 'notStarted') {
    io.stderr(`report: ${path}: no start-up in this log (no supervisor state records)\n`);
    return null;
  }
  return { header: log.header, report, ready: readyMarks(log.records) };
}

function recordingsLine(o: ReportCompareOptions): string {
  const n = (paths: string[]) => (paths.length === 1 ? '1 recording' : `the fastest of ${paths.length} recordings`);
  return o.baselinePaths.length === 1 && o.currentPaths.length === 1 ? '' : `baseline: ${n(o.baselinePaths)}; current: ${n(o.currentPaths)}\n`;
}

function sideOf(paths: string[], startups: (ReadStartup | null)[]) {
  return { logs: paths.map((path, i) => ({ path, header: startups[i]!.header })) };
}

function parseThresholds(o: ReportCompareOptions, io: CommandIo): CompareThresholds | null {
  const maxRatio = o.maxRatio === undefined ? DEFAULT_THRESHOLDS.maxRatio : Number(o.maxRatio);
  if (!Number.isFinite(maxRatio) || maxRatio < 1) {
    io.stderr(`report: --max-ratio must be a number of at least 1, got ${JSON.stringify(o.maxRatio)}\n`);
    return null;
  }
  const maxAddedMs = milliseconds('max-added-ms', o.maxAddedMs, DEFAULT_THRESHOLDS.maxAddedMs, io);
  const maxReadyAddedMs = milliseconds('max-ready-added-ms', o.maxReadyAddedMs, DEFAULT_THRESHOLDS.maxReadyAddedMs, io);
  if (maxAddedMs === null || maxReadyAddedMs === null) return null;
  return { maxRatio, maxAddedMs, maxReadyAddedMs };
}

function milliseconds(flag: string, given: string | undefined, byDefault: number, io: CommandIo): number | null {
  const ms = given === undefined ? byDefault : Number(given);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  io.stderr(`report: --${flag} must be a number of milliseconds, at least 0, got ${JSON.stringify(given)}\n`);
  return null;
}
