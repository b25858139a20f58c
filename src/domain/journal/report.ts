/**
 * The start-up as a table, from a journal: each phase of src/domain/phases.ts with its start offset,
 * duration and outcome, read from the supervisor's state records; what a phase still waiting waits
 * on (its last `phase.waiting`); and the critical path. The supervisor runs its phases one after
 * another, as the Go kubelet's run() does, so the critical path is the whole chain of phases up to
 * where start-up stands; the report names the phases that dominate it.
 */
import { isPhaseId, PHASE_IDS, type PhaseId } from '../phases.js';
import type { JournalRecord } from './record.js';
import { serializeError } from '../errors.js';
import { printable } from '../text/printable.js';

export type PhaseOutcome = 'ok' | 'failed' | 'interrupted' | 'inProgress' | 'notReached';

export interface PhaseRow {
  phase: PhaseId;
  startMs: number | null;
  durationMs: number | null;
  outcome: PhaseOutcome;
  waitingOn: string | null;
  error: { code: string; message: string } | null;
}

export interface StartupReport {
  phases: PhaseRow[];
  /** Where the supervisor ended or stands: a phase id, `running`, `stopped`, `failed`. */
  finalState: string;
  /** Offset at which `running` was reached, if it was. */
  runningAtMs: number | null;
  criticalPath: { phases: PhaseId[]; totalMs: number; dominant: { phase: PhaseId; durationMs: number; share: number }[] };
  /** Offset of the last record: how much of the run the log covers. */
  coveredMs: number;
}

export function startupReport(records: readonly JournalRecord[], rootActor = 'supervisor'): StartupReport {
  const states = records.filter((r) => r.actor === rootActor && r.type === 'state');
  const starts = new Map<PhaseId, number>();
  const ends = new Map<PhaseId, { t: number; next: string }>();
  let current: PhaseId | null = null;
  let finalState = 'notStarted';
  let runningAtMs: number | null = null;
  for (const r of states) {
    const label = stateLabel((r.payload as { value?: unknown }).value);
    if (current && label !== current) ends.set(current, { t: r.t, next: label });
    if (isPhaseId(label)) {
      if (!starts.has(label)) starts.set(label, r.t);
      current = label;
    } else {
      current = null;
    }
    if (label === 'running' && runningAtMs === null) runningAtMs = r.t;
    finalState = label;
  }

  const failure = lastFailure(records, rootActor);
  const waiting = lastWaiting(records, rootActor);
  const coveredMs = records.at(-1)?.t ?? 0;

  const phases: PhaseRow[] = PHASE_IDS.map((phase) => {
    const start = starts.get(phase);
    if (start === undefined) return { phase, startMs: null, durationMs: null, outcome: 'notReached', waitingOn: null, error: null };
    const end = ends.get(phase);
    if (!end) {
      return { phase, startMs: start, durationMs: coveredMs - start, outcome: 'inProgress', waitingOn: waiting.get(phase) ?? null, error: null };
    }
    const outcome: PhaseOutcome = end.next === 'failed' ? 'failed' : end.next === 'stopping' || end.next === 'stopped' ? 'interrupted' : 'ok';
    return {
      phase,
      startMs: start,
      durationMs: end.t - start,
      outcome,
      waitingOn: outcome === 'interrupted' ? waiting.get(phase) ?? null : null,
      error: outcome === 'failed' && failure?.phase === phase ? failure.error : null,
    };
  });

  return { phases, finalState, runningAtMs, criticalPath: criticalPathOf(phases), coveredMs };
}

/** The chain of phases reached, its total, and the three longest of it. */
export function criticalPathOf(phases: readonly PhaseRow[]): StartupReport['criticalPath'] {
  const chain = phases.filter((p) => p.startMs !== null);
  const totalMs = chain.reduce((sum, p) => sum + (p.durationMs ?? 0), 0);
  const dominant = [...chain]
    .sort((a, b) => (b.durationMs ?? 0) - (a.durationMs ?? 0))
    .slice(0, 3)
    .filter((p) => (p.durationMs ?? 0) > 0)
    .map((p) => ({ phase: p.phase, durationMs: p.durationMs ?? 0, share: totalMs > 0 ? (p.durationMs ?? 0) / totalMs : 0 }));
  return { phases: chain.map((p) => p.phase), totalMs, dominant };
}

/** A supervisor state value as one label: `{ run: 'nodeName' }` → `run.nodeName` (or its phase id). */
function stateLabel(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) {
    const [group, leaf] = Object.entries(value)[0] ?? [];
    if (typeof leaf === 'string') return group === 'runTail' ? `run.${leaf}` : `${group}.${leaf}`;
  }
  return 'unknown';
}

function lastWaiting(records: readonly JournalRecord[], rootActor: string): Map<PhaseId, string> {
  const out = new Map<PhaseId, string>();
  for (const r of records) {
    if (r.actor !== rootActor || r.name !== 'phase.waiting') continue;
    const p = r.payload as { phase?: string; reason?: string };
    if (p.phase && isPhaseId(p.phase) && typeof p.reason === 'string') out.set(p.phase, p.reason);
  }
  return out;
}

function lastFailure(records: readonly JournalRecord[], rootActor: string) {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i]!;
    if (r.actor === rootActor && r.name.startsWith('xstate.error.actor.')) {
      const phase = r.name.slice('xstate.error.actor.'.length);
      const { code, message } = serializeError((r.payload as { error?: unknown }).error ?? '');
      if (isPhaseId(phase)) return { phase, error: { code, message } };
    }
  }
  return null;
}

/** The report as a fixed-width table, for people; each line printable (an error's message is a runtime's or a peer's text). */
export function formatReport(report: StartupReport): string {
  const rows = report.phases.map((p) => [
    p.phase,
    p.startMs === null ? '-' : `+${p.startMs}ms`,
    p.durationMs === null ? '-' : `${p.durationMs}ms`,
    p.outcome,
    p.error ? `${p.error.code}: ${p.error.message}` : p.waitingOn ? `waiting on: ${p.waitingOn}` : '',
  ]);
  const head = ['PHASE', 'START', 'DURATION', 'OUTCOME', 'DETAIL'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  const cp = report.criticalPath;
  const dominant = cp.dominant.map((d) => `${d.phase} ${d.durationMs}ms (${Math.round(d.share * 100)}%)`).join(', ');
  return [
    line(head),
    ...rows.map(line),
    '',
    `state: ${report.finalState}${report.runningAtMs !== null ? `, running at +${report.runningAtMs}ms` : ''}`,
    `critical path: ${cp.phases.length} phases in sequence, ${cp.totalMs}ms${dominant ? `; dominated by ${dominant}` : ''}`,
  ].map(printable).join('\n');
}
