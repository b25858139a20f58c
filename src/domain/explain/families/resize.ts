/**
 * Resize: what became of each in-place resize the pod's spec asked, from Go's resize events as the
 * syncLoop emitted them: allocated (started), pending and why (Deferred or Infeasible, with the
 * reason's message), completed, or refused by the runtime (the error), each with the generation it
 * was for. The events' JSON summary is read for the generation and the message only.
 */
import { isPlainObject } from '../../config/decode.js';
import type { JournalRecord } from '../../journal/record.js';
import type { FamilyExplainer, StoryLine } from '../story.js';

const TEXT: Record<string, string> = {
  ResizeStarted: 'resize allocated',
  ResizeCompleted: 'resize completed',
  ResizeDeferred: 'resize pending (Deferred): it fits the node but not beside the other pods now',
  ResizeInfeasible: 'resize pending (Infeasible): it cannot be allocated on this node',
  ResizeError: 'resize failed in the runtime',
};

/** The generation and error of an event's `<prefix>: {json}` message; nothing when it does not parse. */
function summaryOf(message: string): { generation?: number; error?: string } {
  const at = message.indexOf(': {');
  if (at < 0) return {};
  try {
    const summary: unknown = JSON.parse(message.slice(at + 2));
    if (!isPlainObject(summary)) return {};
    return {
      ...(typeof summary.generation === 'number' ? { generation: summary.generation } : {}),
      ...(typeof summary.error === 'string' && summary.error !== '' ? { error: summary.error } : {}),
    };
  } catch {
    return {};
  }
}

export const resizeFamily: FamilyExplainer = (history) => {
  const lines: StoryLine[] = [];
  for (const record of history.records as readonly JournalRecord[]) {
    if (record.actor !== 'syncLoop' || record.type !== 'action' || record.name !== 'emit' || !isPlainObject(record.payload)) continue;
    const event = isPlainObject(record.payload.event) ? record.payload.event : {};
    if (event.type !== 'pod.resize.event' || !isPlainObject(event.pod) || event.pod.uid !== history.pod.uid) continue;
    const reason = String(event.reason);
    const { generation, error } = summaryOf(String(event.message));
    const text = `${TEXT[reason] ?? reason}${error ? `: ${error}` : ''}${generation !== undefined ? ` (generation ${generation})` : ''}`;
    lines.push({ t: record.t, family: 'resize', text, cites: [record.seq] });
  }
  return lines;
};
