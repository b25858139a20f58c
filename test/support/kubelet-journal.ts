/**
 * The test kubelet's journal (its event log, `<root-dir>/events/latest.jsonl`, on by default), read
 * back to wait on what the kubelet did rather than for a while: a periodic pass of a machine (its
 * `xstate.after` event) journaled after a mark, and the effects that pass started answered; or one
 * child actor started after a mark, and its output.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from './daemon.js';

export interface JournalLine {
  seq: number;
  actor: string;
  kind: string;
  type: string;
  name: string;
  source: string | null;
  payload: { child?: string; output?: unknown };
}

/** Every whole line of the run's journal; a line still being written is left for the next read. */
export function journalLines(rootDir: string): JournalLine[] {
  let text: string;
  try {
    text = readFileSync(join(rootDir, 'events', 'latest.jsonl'), 'utf8');
  } catch {
    return [];
  }
  const lines: JournalLine[] = [];
  for (const line of text.split('\n')) {
    try {
      const r = JSON.parse(line) as Partial<JournalLine>;
      if (typeof r.seq === 'number' && typeof r.actor === 'string') lines.push(r as JournalLine);
    } catch { /* the header's fields differ; a torn last line parses next time */ }
  }
  return lines;
}

/** The newest sequence number journaled: events after it happened after this call. */
export function journalMark(rootDir: string): number {
  return journalLines(rootDir).reduce((m, r) => Math.max(m, r.seq), 0);
}

/**
 * Waits until `actor` has taken `event` (an input event) after `mark`, and every child it spawned
 * from then on has been stopped, i.e. the effects of that pass have answered.
 */
export function untilPassAnswered(rootDir: string, mark: number, actor: string, event: string, ms: number, context?: () => string): Promise<number> {
  return until(`${actor} to take ${event} after #${mark} and its effects to answer`, () => {
    const lines = journalLines(rootDir);
    const pass = lines.find((r) => r.seq > mark && r.actor === actor && r.kind === 'input' && r.type === 'event' && r.name === event);
    if (!pass) return undefined;
    const open = new Set<string>();
    for (const r of lines) {
      if (r.seq <= pass.seq || r.actor !== actor || r.type !== 'action' || !r.payload.child) continue;
      if (r.name === 'spawn') open.add(r.payload.child);
      if (r.name === 'stop') open.delete(r.payload.child);
    }
    return open.size === 0 && pass.seq;
  }, ms, context);
}

/** Waits until a child `src` of `actor` spawned after `mark` has finished: its output. */
export function untilChildDone(rootDir: string, mark: number, actor: string, src: string, ms: number, context?: () => string): Promise<unknown> {
  const child = `${actor}/${src}`;
  return until(`${child} started after #${mark} to finish`, () => {
    const lines = journalLines(rootDir);
    const spawned = lines.find((r) => r.seq > mark && r.actor === actor && r.type === 'action' && r.name === 'spawn' && r.payload.child === child);
    const done = spawned && lines.find((r) => r.seq > spawned.seq && r.actor === actor && r.kind === 'input' && r.name === `xstate.done.actor.${src}` && r.source === child);
    return done ? { output: done.payload.output } : undefined;
  }, ms, context).then((d) => d.output);
}
