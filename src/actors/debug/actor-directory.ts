/**
 * Every live actor of the system, as the debug server shows it (`/debug/actors`): its stable id,
 * its logic (machine id or actor src), its current state value and status, since when (logical
 * time on the injected clock) and what it waits on. Fed by the same inspection stream as the
 * journal, so what a person sees is what the log says.
 *
 * An actor that ends is dropped, with its last snapshot. A machine that ends with its parent (the
 * system stopping) is kept, so its final state stays in view: a stopped syncLoop is reported as
 * stopped, rather than as not started yet. A machine that ends while its parent runs on (a pod's
 * worker, volume or probe) has left for good: keeping it, with its last context, would grow the
 * directory by every pod the node has ever run (docs/FINDINGS.md).
 */
import type { AnyActorRef, InspectionEvent } from 'xstate';
import type { Clock } from '../../ports/clock.js';
import { isMachineActor, logicNameOf } from '../journal/actor-facts.js';

export interface ActorView {
  id: string;
  parent: string | null;
  logic: string;
  machine: boolean;
  value: unknown;
  status: string;
  /** Logical ms (run-relative) of the last state change. */
  sinceMs: number;
  waitingOn: string | null;
}

/** The view plus its state value as text, kept to compare the next snapshot without re-serialising. */
type Entry = ActorView & { valueKey: string };

export class ActorDirectory {
  private readonly actors = new Map<AnyActorRef, Entry>();
  /** The last snapshot per actor id (a reference, not a copy: reading it costs nothing). */
  private readonly snapshots = new Map<string, unknown>();
  private readonly t0: number;

  constructor(private readonly clock: Clock, private readonly stableId: (ref: AnyActorRef) => string) {
    this.t0 = clock.now();
  }

  readonly inspect = (ev: InspectionEvent): void => {
    const ref = ev.actorRef as AnyActorRef;
    if (ev.type === '@xstate.actor') {
      const machine = isMachineActor(ref);
      this.actors.set(ref, {
        id: this.stableId(ref),
        parent: ref._parent ? this.stableId(ref._parent) : null,
        logic: logicNameOf(ref),
        machine,
        value: null,
        valueKey: 'null',
        status: 'active',
        sinceMs: this.clock.now() - this.t0,
        waitingOn: null,
      });
      return;
    }
    if (ev.type !== '@xstate.snapshot') return;
    const view = this.actors.get(ref);
    if (!view) return;
    this.snapshots.set(view.id, ev.snapshot);
    const snap = ev.snapshot as { value?: unknown; status?: string; context?: { waiting?: { reason?: string } | null } };
    const value = snap.value ?? null;
    // Most snapshots repeat the state (an event that changed only context): compare as text once.
    const valueKey = typeof value === 'string' ? value : JSON.stringify(value);
    if (valueKey !== view.valueKey || snap.status !== view.status) {
      view.sinceMs = this.clock.now() - this.t0;
    }
    view.value = value;
    view.valueKey = valueKey;
    view.status = snap.status ?? 'active';
    view.waitingOn = snap.context?.waiting?.reason ?? null;
    if (view.status !== 'active' && (!view.machine || parentRunsOn(ref))) {
      this.actors.delete(ref);
      this.snapshots.delete(view.id);
    }
  };

  /** The last snapshot of an actor by stable id. */
  snapshot(id: string): unknown {
    return this.snapshots.get(id);
  }

  /** One actor by stable id, if it is live. */
  find(id: string): ActorView | undefined {
    for (const v of this.actors.values()) if (v.id === id) return view(v);
    return undefined;
  }

  /** Live actors, parents before children. */
  list(): ActorView[] {
    return [...this.actors.values()].map(view);
  }
}

/** The actor has a parent that is still active (when a parent stops, its children stop first). */
function parentRunsOn(ref: AnyActorRef): boolean {
  return ref._parent !== undefined && ref._parent.getSnapshot().status === 'active';
}

function view({ valueKey: _valueKey, ...v }: Entry): ActorView {
  return v;
}
