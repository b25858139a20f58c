/**
 * The syncLoop's iteration lag: how late the syncLoop's timed work ran after it was due.
 *
 * Go's syncLoop wakes on syncCh (a 1 s ticker: pods whose resync is due go to their workers),
 * housekeepingCh (2 s), plegCh and the probe managers' updates. Ours has no ticker of its own
 * (an idle node journals nothing): the timed inputs are timers of the actors under it, each an
 * XState `after` on the injected clock —
 * - the PLEG's relistPeriod (what feeds plegCh),
 * - each pod worker's resync and back-off (syncCh's per-pod due times),
 * - each probe worker's period (the probe managers' updates);
 * housekeeping has no timer here (finished workers are forgotten as they finish).
 * The lag of one such input is the time from when its timer was due to when its event reached the
 * actor's mailbox, which is handled at once: all of it is event-loop blocking, so this is exactly
 * what load on the HTTP servers would do to the kubelet's own work.
 *
 * How: the system's clock is wrapped so that each timer remembers its due time while its callback
 * runs; XState's scheduler relays the delayed event inside that callback, and the first
 * `@xstate.event` the inspection stream shows then is that event. Machines are untouched.
 */
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { newHistogramCounts, recordMs, type HistogramCounts } from '../../domain/kubelet-server/histogram-counts.js';
import { LAG_BUCKETS } from '../../domain/kubelet-server/kubelet-metrics.js';
import { RecentMax } from '../../domain/kubelet-server/recent-max.js';
import type { Clock } from '../../ports/clock.js';

/** The actors whose timers are the syncLoop's timed inputs (see above), by stable id. */
export const isSyncLoopTimerOwner = (actorId: string): boolean => actorId === 'pleg' || actorId.startsWith('pod:') || actorId.startsWith('probe:');

/** How late an input due at `dueAtMs` was when handled at `handledAtMs` (never negative: timers do not fire early, clocks can step). */
export const timerLagMs = (dueAtMs: number, handledAtMs: number): number => Math.max(0, handledAtMs - dueAtMs);

export class SyncLoopLagMeter {
  readonly histogram: HistogramCounts = newHistogramCounts(LAG_BUCKETS);
  private readonly recent = new RecentMax(60);
  /** The due time of the timer whose callback is running, until its event has been seen. */
  private firingDueAtMs: number | null = null;
  /** The clock to give the actor system (createActor's `clock`): the base clock, its timers stamped. */
  readonly clock: Clock;

  constructor(private readonly base: Clock, private readonly stableId: (ref: AnyActorRef) => string, private readonly tracked = isSyncLoopTimerOwner) {
    this.clock = {
      now: () => base.now(),
      setTimeout: (fn, ms) => {
        const dueAtMs = base.now() + ms;
        return base.setTimeout((...args: unknown[]) => {
          this.firingDueAtMs = dueAtMs;
          try {
            fn(...args);
          } finally {
            this.firingDueAtMs = null;
          }
        }, ms);
      },
      clearTimeout: (id) => base.clearTimeout(id),
    };
  }

  readonly inspect = (ev: InspectionEvent): void => {
    if (this.firingDueAtMs === null || ev.type !== '@xstate.event') return;
    const dueAtMs = this.firingDueAtMs;
    // Only the timer's own event: whatever it causes in the same callback is not late.
    this.firingDueAtMs = null;
    if (!this.tracked(this.stableId(ev.actorRef as AnyActorRef))) return;
    const now = this.base.now();
    const lag = timerLagMs(dueAtMs, now);
    recordMs(this.histogram, lag);
    this.recent.record(now, lag);
  };

  /** The largest lag of the last minute, in ms (0 when none). */
  recentMaxMs(): number {
    return this.recent.max(this.base.now());
  }
}
