/**
 * The prober's metrics (`/metrics/probes`), gathered from the same inspection stream as the journal,
 * so they count what the probe workers did and nothing else:
 * - an attempt starts when a probe worker (`probe:<uid>:<container>:<type>`) invokes `runProbe`
 *   (the child actor `…/runProbe` appears), and ends with `xstate.done.actor.runProbe` delivered to
 *   the worker, whose output is the attempt's outcome. Go counts every attempt by result and times
 *   the successful and unknown ones; a `runProbe` that rejects is a prober error, which Go throws away.
 * - a worker's series go when the worker does (stopped with its pod, or `stopped` when the pod
 *   terminates), as Go deletes them when its worker exits.
 * Memory: one entry per live probe worker.
 */
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { newHistogramCounts, recordMs } from '../../domain/kubelet-server/histogram-counts.js';
import { goProbeResult, goProbeType, isTimedResult, type ProbeMetricsSnapshot, type ProbeSeries } from '../../domain/kubelet-server/probe-metrics.js';
import { DEFAULT_BUCKETS } from '../../domain/kubelet-server/prometheus-text.js';
import type { ProbeOutcome, ProbeType } from '../../domain/probe/types.js';
import type { Clock } from '../../ports/clock.js';

/** The pod's name and namespace by UID, as the syncLoop holds it (Go labels series with them). */
export type PodNameLookup = (podUid: string) => { namespace?: string; name: string } | undefined;

interface WorkerSeries extends ProbeSeries {
  results: Partial<Record<'successful' | 'failed' | 'unknown', number>>;
}

const ATTEMPT_DONE = 'xstate.done.actor.runProbe';
const ATTEMPT_ACTOR_SUFFIX = '/runProbe';

export class ProbeMetricsCollector {
  private readonly workers = new Map<string, WorkerSeries>();
  /** When each worker's running attempt began (a worker's first attempt starts before its first snapshot). */
  private readonly attemptStarts = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly stableId: (ref: AnyActorRef) => string,
    private readonly podName: PodNameLookup,
    private readonly processStartMs: number,
  ) {}

  readonly inspect = (ev: InspectionEvent): void => {
    const id = this.stableId(ev.actorRef as AnyActorRef);
    if (ev.type === '@xstate.actor') {
      if (id.startsWith('probe:') && id.endsWith(ATTEMPT_ACTOR_SUFFIX)) this.attemptStarts.set(id.slice(0, -ATTEMPT_ACTOR_SUFFIX.length), this.clock.now());
      return;
    }
    if (!id.startsWith('probe:')) return;
    if (ev.type === '@xstate.snapshot') {
      const snap = ev.snapshot as { status?: string; value?: unknown; context?: { podUid?: string; container?: { name?: string }; probe?: ProbeType } };
      // `stopped` is where a liveness or startup worker ends when its pod terminates (its parent stops it later).
      if ((snap.status !== undefined && snap.status !== 'active') || snap.value === 'stopped') {
        this.workers.delete(id);
        this.attemptStarts.delete(id);
      } else if (!this.workers.has(id) && snap.context) this.addWorker(id, snap.context);
      return;
    }
    if (ev.type === '@xstate.event' && ev.event.type === ATTEMPT_DONE) {
      const worker = this.workers.get(id);
      const outcome = (ev.event as { output?: ProbeOutcome }).output;
      if (worker && outcome) this.count(worker, outcome.result, this.attemptStarts.get(id));
      this.attemptStarts.delete(id);
    }
  };

  snapshot(): ProbeMetricsSnapshot {
    return { processStartSeconds: this.processStartMs / 1000, series: [...this.workers.values()] };
  }

  private addWorker(id: string, ctx: { podUid?: string; container?: { name?: string }; probe?: ProbeType }): void {
    if (!ctx.podUid || !ctx.container?.name || !ctx.probe) return;
    const pod = this.podName(ctx.podUid);
    this.workers.set(id, {
      probeType: goProbeType(ctx.probe),
      container: ctx.container.name,
      pod: pod?.name ?? '',
      namespace: pod?.namespace ?? 'default',
      podUid: ctx.podUid,
      results: {},
      durations: null,
    });
  }

  private count(worker: WorkerSeries, result: ProbeOutcome['result'], startedAtMs: number | undefined): void {
    const label = goProbeResult(result);
    worker.results[label] = (worker.results[label] ?? 0) + 1;
    if (isTimedResult(result) && startedAtMs !== undefined) {
      worker.durations ??= newHistogramCounts(DEFAULT_BUCKETS);
      recordMs(worker.durations, this.clock.now() - startedAtMs);
    }
  }
}
