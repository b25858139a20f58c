/**
 * The kubelet's metrics, gathered from the same inspection stream as the journal, so /metrics says
 * what the actors did: PLEG relist durations (each new relist of the `pleg` actor), pod start
 * durations (a pod's first ADD to its first status with every container running, Go's
 * kubelet_pod_start_duration_seconds), pod worker sync durations (a worker's time in `syncing`),
 * started pods, and the start-up's total (process start to `running`). Histograms are kept as
 * counts, so memory stays bounded however long the kubelet runs.
 */
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { newHistogramCounts, recordMs, type HistogramCounts } from '../../domain/kubelet-server/histogram-counts.js';
import { POD_START_BUCKETS } from '../../domain/kubelet-server/kubelet-metrics.js';
import { DEFAULT_BUCKETS } from '../../domain/kubelet-server/prometheus-text.js';
import type { Pod, PodStatus } from '../../domain/pod/types.js';
import type { Clock } from '../../ports/clock.js';

export class MetricsCollector {
  readonly plegRelist: HistogramCounts = newHistogramCounts(DEFAULT_BUCKETS);
  readonly podStart: HistogramCounts = newHistogramCounts(POD_START_BUCKETS);
  readonly podWorkerSync: HistogramCounts = newHistogramCounts(DEFAULT_BUCKETS);
  startedPods = 0;
  startupMs: number | null = null;
  private readonly firstSeen = new Map<string, number>();
  private readonly syncingSince = new Map<string, number>();
  private lastRelistCount = 0;

  constructor(private readonly clock: Clock, private readonly stableId: (ref: AnyActorRef) => string, private readonly processStartMs: number) {}

  readonly inspect = (ev: InspectionEvent): void => {
    const id = this.stableId(ev.actorRef as AnyActorRef);
    if (ev.type === '@xstate.event' && id === 'syncLoop') this.onSyncLoopEvent(ev.event);
    if (ev.type !== '@xstate.snapshot') return;
    const snap = ev.snapshot as { value?: unknown; status?: string; context?: Record<string, unknown> };
    if (id === 'pleg') {
      const count = Number(snap.context?.relistCount ?? 0);
      const ms = snap.context?.lastRelistDurationMs;
      if (count > this.lastRelistCount && typeof ms === 'number') recordMs(this.plegRelist, ms);
      this.lastRelistCount = count;
    } else if (id.startsWith('pod:')) {
      // The pod worker's `syncing` is a top-level state: a string compare, no serialising per event.
      const syncing = snap.value === 'syncing' || (typeof snap.value === 'object' && snap.value !== null && 'syncing' in snap.value);
      const since = this.syncingSince.get(id);
      const active = snap.status === 'active';
      if (syncing && since === undefined && active) this.syncingSince.set(id, this.clock.now());
      if (!syncing && since !== undefined) {
        recordMs(this.podWorkerSync, this.clock.now() - since);
        this.syncingSince.delete(id);
      }
      // A worker stopped in the middle of a sync records no duration, and is forgotten.
      if (!active) this.syncingSince.delete(id);
    } else if (id === 'supervisor' && snap.value === 'running' && this.startupMs === null) {
      this.startupMs = this.clock.now() - this.processStartMs;
    }
  };

  /** Pods whose start or sync is being timed (each forgotten once its pod is removed). */
  get trackedPods(): number {
    return this.firstSeen.size + this.syncingSince.size;
  }

  private onSyncLoopEvent(event: { type: string; op?: string; pods?: Pod[]; podUid?: string; status?: PodStatus }): void {
    if (event.type === 'pod.config.updated' && event.op === 'ADD') {
      for (const p of event.pods ?? []) if (p.metadata.uid && !this.firstSeen.has(p.metadata.uid)) this.firstSeen.set(p.metadata.uid, this.clock.now());
    }
    // A removed pod's marks go with it: kept, they grew by one for every pod the node ever ran.
    if (event.type === 'pod.config.updated' && event.op === 'REMOVE') {
      for (const p of event.pods ?? []) this.firstSeen.delete(p.metadata.uid);
    }
    if (event.type === 'pod.status.updated' && event.podUid) {
      const seen = this.firstSeen.get(event.podUid);
      const statuses = event.status?.containerStatuses ?? [];
      if (seen !== undefined && seen >= 0 && statuses.length > 0 && statuses.every((c) => c.state?.running)) {
        recordMs(this.podStart, this.clock.now() - seen);
        this.startedPods += 1;
        this.firstSeen.set(event.podUid, -1); // counted once
      }
    }
  }
}
