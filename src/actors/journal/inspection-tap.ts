/**
 * Taps XState's inspection stream and turns it into journal records (our schema, DESIGN.md §3).
 *
 * What is recorded:
 * - `actor`: every actor created anywhere in the system (derived);
 * - `event`: every event delivered to a *machine* actor. It is an **input** when it came from
 *   outside the machines: no sender (a signal, a test, the replay driver), a sender that is not a
 *   machine (a promise or callback actor answering with an adapter's result), or a timer firing
 *   (`xstate.after.*`). Everything else (events between machines) is **derived**;
 * - `state`: a machine actor's state value and status, each time it changes (derived).
 * Events to non-machine actors (their init, a promise settling) are not recorded: they are the
 * inside of an effect whose result the next input carries.
 *
 * Stable actor ids: the actor's systemId when it has one (`supervisor`, `pod:<uid>`), else its
 * parent's stable id and its own id (`supervisor/run.preInitRuntime`). Session ids never appear.
 */
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { toJournalPayload } from '../../domain/journal/payload.js';
import { redact } from '../../domain/journal/redact.js';
import type { JournalRecord, RecordKind } from '../../domain/journal/record.js';
import type { Clock } from '../../ports/clock.js';

export interface InspectionTapOptions {
  clock: Clock;
  /** Receives each record as it is made; must not block. */
  onRecord: (record: JournalRecord) => void;
  /** Wall clock for the informational `wall` field (defaults to Date). */
  wallClock?: () => Date;
}

export interface InspectionTap {
  inspect: (ev: InspectionEvent) => void;
  /** The stable id of an actor seen by this tap. */
  stableId: (ref: AnyActorRef) => string;
  /** Records made so far. */
  readonly count: number;
}

interface ActorInternals {
  id: string;
  systemId?: string;
  /** Set before XState announces the actor (its `systemId` field is set just after). */
  options?: { systemId?: string };
  _parent?: AnyActorRef;
  src?: unknown;
  logic?: { id?: unknown; root?: unknown };
}

export function createInspectionTap(opts: InspectionTapOptions): InspectionTap {
  const t0 = opts.clock.now();
  const wallClock = opts.wallClock ?? (() => new Date());
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
  const lastState = new WeakMap<object, string>();
  let seq = 0;

  const stableId = (ref: AnyActorRef): string => {
    const known = ids.get(ref);
    if (known) return known;
    const a = ref as unknown as ActorInternals;
    const id = a.options?.systemId ?? a.systemId ?? (a._parent ? `${stableId(a._parent)}/${a.id}` : a.id);
    ids.set(ref, id);
    return id;
  };

  const emit = (actor: string, kind: RecordKind, type: JournalRecord['type'], name: string, source: string | null, payload: unknown) => {
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
      payload: redact(toJournalPayload(payload)),
    });
  };

  const inspect = (ev: InspectionEvent): void => {
    const target = ev.actorRef as AnyActorRef;
    switch (ev.type) {
      case '@xstate.actor':
        emit(stableId(target), 'derived', 'actor', logicName(target), null, { parent: parentId(target, stableId) });
        return;
      case '@xstate.event': {
        if (!isMachine(target)) return;
        const source = ev.sourceRef as AnyActorRef | undefined;
        const { type, ...payload } = ev.event;
        const input = !source || !isMachine(source) || type.startsWith('xstate.after.');
        emit(stableId(target), input ? 'input' : 'derived', 'event', type, source ? stableId(source) : null, payload);
        return;
      }
      case '@xstate.snapshot': {
        if (!isMachine(target)) return;
        const snap = ev.snapshot as { value?: unknown; status?: string; output?: unknown; error?: unknown };
        const state: Record<string, unknown> = { value: snap.value ?? null, status: snap.status ?? 'active' };
        if (snap.status === 'done' && snap.output !== undefined) state.output = snap.output;
        if (snap.status === 'error') state.error = snap.error;
        const key = JSON.stringify(toJournalPayload(state));
        if (lastState.get(target) === key) return;
        lastState.set(target, key);
        emit(stableId(target), 'derived', 'state', logicName(target), null, state);
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
  };
}

function isMachine(ref: AnyActorRef): boolean {
  const logic = (ref as unknown as ActorInternals).logic;
  return typeof logic === 'object' && logic !== null && 'root' in logic;
}

function logicName(ref: AnyActorRef): string {
  const a = ref as unknown as ActorInternals;
  if (typeof a.src === 'string') return a.src;
  if (isMachine(ref) && typeof a.logic?.id === 'string') return a.logic.id;
  return 'anonymous';
}

function parentId(ref: AnyActorRef, stableId: (r: AnyActorRef) => string): string | null {
  const parent = (ref as unknown as ActorInternals)._parent;
  return parent ? stableId(parent) : null;
}
