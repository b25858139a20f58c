/**
 * When a start-up was Ready, read from a journal. What a user means by Ready depends on the mode:
 * - cluster mode: `nodeReady`, the first Node status the API server accepted with the Ready
 *   condition True (what `kubectl get nodes` then shows), from the node status machine's answers
 *   to registerNode and patchNodeStatus;
 * - standalone (no Node): `syncLoopSyncing`, the sync loop's first `syncing` state, once every pod
 *   source was seen and pods begin to be started: the moment static pods start.
 * A cluster-mode log has both marks; a comparison uses the one both logs have (report-compare.ts).
 */
import type { JournalRecord } from './record.js';

export type ReadyMarker = 'nodeReady' | 'syncLoopSyncing';

export type ReadyMarks = Partial<Record<ReadyMarker, number>>;

const NODE_ANSWERS = new Set(['xstate.done.actor.registerNode', 'xstate.done.actor.patchNodeStatus']);

/** The offset of each Ready mark the journal holds (the first occurrence of each). */
export function readyMarks(records: readonly JournalRecord[]): ReadyMarks {
  const marks: ReadyMarks = {};
  for (const r of records) {
    if (marks.syncLoopSyncing === undefined && r.actor === 'syncLoop' && r.type === 'state' && stateValue(r.payload) === 'syncing') marks.syncLoopSyncing = r.t;
    if (marks.nodeReady === undefined && r.actor === 'nodeStatus' && r.type === 'event' && NODE_ANSWERS.has(r.name) && answersNodeReady(r.payload)) marks.nodeReady = r.t;
    if (marks.syncLoopSyncing !== undefined && marks.nodeReady !== undefined) break;
  }
  return marks;
}

function stateValue(payload: unknown): unknown {
  return typeof payload === 'object' && payload !== null ? (payload as { value?: unknown }).value : undefined;
}

/** An API answer `{ ok: true, value: Node }` whose Node has Ready=True. */
function answersNodeReady(payload: unknown): boolean {
  const output = (payload as { output?: { ok?: unknown; value?: { status?: { conditions?: unknown } } } } | null)?.output;
  if (output?.ok !== true) return false;
  const conditions = output.value?.status?.conditions;
  return Array.isArray(conditions) && conditions.some((c: { type?: unknown; status?: unknown } | null) => c?.type === 'Ready' && c.status === 'True');
}
