/**
 * The journal's schema (docs/ARCHITECTURE.md, The event log): JSON Lines, a header then one record
 * per event that crossed an actor boundary. Our own schema, not Stately's inspection stream: no
 * random ids, and logical time from the injected clock so a replay can reproduce it.
 */
export const JOURNAL_FORMAT = 'kubelet-ts.journal';
/**
 * 2: a pod source's unchanged pods are written as references to its previous snapshot (snapshot-refs.ts).
 * 3: any pod written before is written as a reference to where it was written whole (pod-refs.ts).
 * 4: a start-up phase's spawn writes the outputs an earlier spawn carried as references (outputs-refs.ts),
 *    and an event's delivery refers to the send, raise or spawn that carried it (event-refs.ts);
 *    snapshots are no longer written with the references of 2 (their pods are pod references).
 */
export const JOURNAL_VERSION = 4;

export interface JournalHeader {
  format: typeof JOURNAL_FORMAT;
  version: number;
  kubeletVersion: string;
  /** Wall-clock start, ISO 8601. */
  startTime: string;
  nodeName: string;
  /** sha256 of the effective KubeletConfiguration (canonical JSON), or null before it was known. */
  configSha256: string | null;
  /** sha256 of the machine definitions the run used; replay warns when its own differ. */
  machinesSha256: string;
  /** 1 for the first segment of a run; rotation starts a new segment with a copy of the header. */
  segment: number;
}

/**
 * input: came from outside the actor system (an adapter's result, a signal, a timer firing, a
 * watch event, an HTTP request): replay feeds these. derived: an event between machine actors, a
 * state change, an actor spawned: replay regenerates and compares these.
 */
export type RecordKind = 'input' | 'derived';

/**
 * `action`: what a machine decided to do besides changing state, from XState's own action records:
 * `spawn` (an invoked or spawned child: its src and input), `stop` (a child stopped), `schedule` (a
 * delayed event: its delay and id, `after` transitions included), `cancel` (a delayed event called
 * off), `send` (an event sent to another actor, machine or not), `raise` and `emit`.
 *
 * `checkpoint`: the whole system as XState persists it (the root's persisted snapshot, every child
 * within), written after each rotation so a log whose first segments are gone still replays from
 * there. Replay starts from one; it does not regenerate them.
 */
export type RecordType = 'event' | 'state' | 'actor' | 'action' | 'checkpoint';

export interface JournalRecord {
  seq: number;
  /** Logical milliseconds since the run started, on the injected clock. */
  t: number;
  /** Wall clock, ISO 8601 (informational; never compared by replay). */
  wall: string;
  /** Stable actor id: `supervisor`, `supervisor/run.preInitRuntime`, `pod:<uid>`, … */
  actor: string;
  kind: RecordKind;
  type: RecordType;
  /** For `event`: the event type; for `state`: the machine id; for `actor`: the logic's name; for `action`: its kind. */
  name: string;
  /** Stable id of the sender, for events; null for events from outside. */
  source: string | null;
  payload: unknown;
}

export function isJournalHeader(value: unknown): value is JournalHeader {
  return typeof value === 'object' && value !== null && (value as { format?: unknown }).format === JOURNAL_FORMAT;
}
