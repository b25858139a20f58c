/**
 * Taps XState's inspection stream and turns it into journal records (our schema:
 * src/domain/journal/record.ts).
 *
 * What is recorded:
 * - `actor`: every actor created anywhere in the system (derived);
 * - `event`: every event delivered to a *machine* actor. It is an **input** when it came from
 *   outside the machines: no sender (a signal, a test, the replay driver), a sender that is not a
 *   machine (a promise or callback actor answering with an adapter's result), or a timer firing
 *   (`xstate.after.*`). Everything else (events between machines) is **derived**;
 * - `state`: a machine actor's state value and status, each time it changes (derived);
 * - `action`: what a machine decided besides its state: a child spawned with its src and input, a
 *   child stopped, a delay scheduled or cancelled, an event sent, raised or emitted (derived; see
 *   action-records.ts).
 * Events to non-machine actors (their init, a promise settling) are not recorded: they are the
 * inside of an effect whose result the next input carries.
 *
 * Stable actor ids: the actor's systemId when it has one (`supervisor`, `pod:<uid>`), else its
 * parent's stable id and its own id (`supervisor/run.preInitRuntime`). Session ids never appear.
 */
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { toJournalPayload } from '../../domain/journal/payload.js';
import { redact } from '../../domain/journal/redact.js';
import { sameJson } from '../../domain/same-json.js';
import type { JournalRecord, RecordKind } from '../../domain/journal/record.js';
import type { Clock } from '../../ports/clock.js';
import { actionRecordOf } from './action-records.js';
import { isMachineActor, logicNameOf, systemIdOf } from './actor-facts.js';

export interface InspectionTapOptions {
  clock: Clock;
  /** Receives each record as it is made; must not block. */
  onRecord: (record: JournalRecord) => void;
  /**
   * Wall clock for the informational `wall` field. Default: the injected clock's time, which is the
   * wall clock in a live run (systemClock) and logical time under a simulated clock.
   */
  wallClock?: () => Date;
  /** The seq of the last record before this tap's first (replay from a checkpoint). Default 0. */
  startSeq?: number;
}

export interface InspectionTap {
  inspect: (ev: InspectionEvent) => void;
  /** The stable id of an actor seen by this tap. */
  stableId: (ref: AnyActorRef) => string;
  /** Records made so far (the seq of the last one). */
  readonly count: number;
  /** Journals `root`'s persisted snapshot, the whole system within, as a checkpoint record (unless nothing was journaled since the last). */
  checkpoint: (root: AnyActorRef) => void;
  /** Counts a record this tap does not make (a checkpoint, in a replay), so seqs stay aligned. */
  skip: () => void;
  /**
   * Runs `fn` without journaling what it causes, still learning the actors' ids and states: for
   * restoring a system from a checkpoint, whose actors the log already has.
   */
  quietly: <T>(fn: () => T) => T;
}

export function createInspectionTap(opts: InspectionTapOptions): InspectionTap {
  const t0 = opts.clock.now();
  const wallClock = opts.wallClock ?? (() => new Date(opts.clock.now()));
  // Formatting a date is costly on the hot path; one string per millisecond is enough.
  let wallMs = NaN;
  let wallText = '';
  const wall = () => {
    const d = wallClock();
    const ms = d.getTime();
    if (ms !== wallMs) {
      wallMs = ms;
      wallText = d.toISOString();
    }
    return wallText;
  };
  const ids = new WeakMap<object, string>();
  /** Each machine's last state record, in the journal's form. */
  const lastState = new WeakMap<object, unknown>();
  let seq = opts.startSeq ?? 0;
  let muted = false;
  let lastCheckpointSeq = -1;

  const stableId = (ref: AnyActorRef): string => {
    const known = ids.get(ref);
    if (known) return known;
    const id = systemIdOf(ref) ?? (ref._parent ? `${stableId(ref._parent)}/${ref.id}` : ref.id);
    ids.set(ref, id);
    return id;
  };

  /** `asJson`: the payload is plain JSON already (a snapshot, whose depth the journal's payload form would cut, or a form made here). */
  const emit = (actor: string, kind: RecordKind, type: JournalRecord['type'], name: string, source: string | null, payload: unknown, asJson = false) => {
    if (muted) return;
    seq += 1;
    opts.onRecord({
      seq,
      t: opts.clock.now() - t0,
      wall: wall(),
      actor,
      kind,
      type,
      name,
      source,
      payload: redact(asJson ? payload : toJournalPayload(payload)),
    });
  };

  const inspect = (ev: InspectionEvent): void => {
    const target = ev.actorRef as AnyActorRef;
    switch (ev.type) {
      case '@xstate.actor':
        emit(stableId(target), 'derived', 'actor', logicNameOf(target), null, { parent: parentId(target, stableId) });
        return;
      case '@xstate.event': {
        if (!isMachineActor(target)) return;
        const source = ev.sourceRef as AnyActorRef | undefined;
        const { type, ...payload } = ev.event;
        const input = !source || !isMachineActor(source) || type.startsWith('xstate.after.');
        emit(stableId(target), input ? 'input' : 'derived', 'event', type, source ? stableId(source) : null, payload);
        return;
      }
      case '@xstate.snapshot': {
        if (!isMachineActor(target)) return;
        const snap = ev.snapshot as { value?: unknown; status?: string; output?: unknown; error?: unknown };
        const state: Record<string, unknown> = { value: snap.value ?? null, status: snap.status ?? 'active' };
        if (snap.status === 'done' && snap.output !== undefined) state.output = snap.output;
        if (snap.status === 'error') state.error = snap.error;
        const form = toJournalPayload(state);
        if (sameJson(lastState.get(target), form)) return;
        lastState.set(target, form);
        emit(stableId(target), 'derived', 'state', logicNameOf(target), null, form, true);
        return;
      }
      case '@xstate.action': {
        if (!isMachineActor(target)) return;
        const record = actionRecordOf(ev.action, stableId);
        if (record) emit(stableId(target), 'derived', 'action', record.name, null, record.payload);
        return;
      }
      default:
        return;
    }
  };

  return {
    inspect,
    stableId,
    get count() {
      return seq;
    },
    checkpoint: (root) => {
      // Nothing happened since the last one: a second would say the same (and a segment smaller
      // than a checkpoint would otherwise rotate on each, for ever).
      if (seq === lastCheckpointSeq) return;
      // JSON as XState means its persisted snapshots to be stored: whole (the journal's payload form
      // stops at depth 12, and a pod worker's context sits deeper), undefined fields left out.
      const snapshot: unknown = JSON.parse(JSON.stringify(root.getPersistedSnapshot()));
      emit(stableId(root), 'derived', 'checkpoint', 'checkpoint', null, { snapshot }, true);
      lastCheckpointSeq = seq;
    },
    skip: () => {
      seq += 1;
    },
    quietly: (fn) => {
      muted = true;
      try {
        return fn();
      } finally {
        muted = false;
      }
    },
  };
}

function parentId(ref: AnyActorRef, stableId: (r: AnyActorRef) => string): string | null {
  return ref._parent ? stableId(ref._parent) : null;
}
