/**
 * A start-up comparison (report-compare.ts) as a fixed-width table for people: the phases either
 * start-up reached, both sides' offsets and durations, what changed and the verdict; then each
 * critical path, the time to Ready, and one closing line that says pass or names what regressed.
 * Each line is printable: a state label is read from a log that may come from anywhere.
 */
import { printable } from '../text/printable.js';
import { READY_LABEL, type PhaseComparison, type StartupComparison } from './report-compare.js';

export function formatComparison(c: StartupComparison): string {
  const rows = c.phases.filter((p) => p.verdict !== 'notReached').map((p) => [
    p.phase,
    p.baseline ? `+${p.baseline.startMs}ms` : '-',
    p.baseline ? `${p.baseline.durationMs}ms` : '-',
    p.current ? `+${p.current.startMs}ms` : '-',
    p.current ? `${p.current.durationMs}ms` : '-',
    p.addedMs === null ? '-' : signed(p.addedMs),
    p.ratio === null ? '-' : `×${p.ratio.toFixed(2)}`,
    verdictCell(p),
  ]);
  const head = ['PHASE', 'BASE START', 'BASE DUR', 'START', 'DURATION', 'ADDED', 'RATIO', 'VERDICT'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd();
  const cp = c.criticalPath;
  const path = (s: typeof cp.baseline) => `${s.phases} phases, ${s.totalMs}ms${s.dominant.length ? `; dominated by ${s.dominant.map((d) => `${d.phase} ${d.durationMs}ms`).join(', ')}` : ''}`;
  const t = c.thresholds;
  return [
    line(head),
    ...rows.map(line),
    '',
    `state: baseline ${c.finalState.baseline}, current ${c.finalState.current}`,
    `critical path: baseline ${path(cp.baseline)}`,
    `critical path: current  ${path(cp.current)}`,
    readyLine(c),
    `thresholds: a phase regresses when it grows by more than ${t.maxAddedMs}ms and to more than ${t.maxRatio}× the baseline; the time to Ready by more than ${t.maxReadyAddedMs}ms and ${t.maxRatio}×`,
    c.regressions.length === 0 ? 'compare: ok' : `compare: regressed: ${c.regressions.join('; ')}`,
  ].map(printable).join('\n');
}

function verdictCell(p: PhaseComparison): string {
  if (p.verdict === 'failed' && !p.regression) return 'failed (in both)';
  return p.regression ? `${p.verdict.toUpperCase()}` : p.verdict;
}

function readyLine(c: StartupComparison): string {
  const r = c.ready;
  if (r.marker) {
    return `time to Ready (${READY_LABEL[r.marker]}): baseline +${r.baselineMs}ms, current +${r.currentMs}ms, ${signed(r.addedMs!)}${r.regression ? ' REGRESSED' : ''}`;
  }
  if (r.verdict === 'neverReady') return 'time to Ready: baseline became Ready, current never did REGRESSED';
  return 'time to Ready: not comparable (neither the Node Ready nor the sync loop syncing mark is in both logs)';
}

function signed(ms: number): string {
  return ms >= 0 ? `+${ms}ms` : `${ms}ms`;
}
