/**
 * Everything that watches the actor system through its inspection stream: the journal (and the
 * visualizer's live feed of it), the actor directory (/debug/actors), the metrics collectors, the
 * syncLoop and event-loop lag meters, and the debug-level transition log. One `inspect` for
 * createActor; the lag meter's clock drives the system's timers.
 */
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { relayAdmissionRejections } from '../actors/api-pods/admission-events.js';
import { relayResizeEvents } from '../actors/api-pods/resize-events.js';
import { relayVolumeEvents } from '../actors/volumes/volume-events.js';
import { relayEvictionEvents } from '../actors/eviction/eviction-events.js';
import { relayNodeShutdownEvents } from '../actors/node-shutdown/node-shutdown-events.js';
import type { EventRecorder } from '../ports/event-recorder.js';
import type { PodActorFailed } from '../machines/sync-loop.machine.js';
import { ActorDirectory } from '../actors/debug/actor-directory.js';
import { createInspectionTap } from '../actors/journal/inspection-tap.js';
import { MetricsCollector } from '../actors/view/metrics-collector.js';
import { ProbeMetricsCollector } from '../actors/view/probe-metrics-collector.js';
import { SyncLoopLagMeter } from '../actors/view/sync-loop-lag.js';
import { JournalFeed } from '../adapters/debug-server/journal-feed.js';
import { startEventLoopDelayMeter } from '../adapters/host/event-loop-delay.js';
import { DeferredJournalSink } from '../adapters/journal-file/deferred-sink.js';
import { actorLogger, type Logger } from '../log.js';
import type { Clock } from '../ports/clock.js';
import { createSystemViews } from './system-views.js';

export function createObservers(clock: Clock, logger: Logger, events: () => EventRecorder | undefined) {
  const journal = new DeferredJournalSink();
  // The visualizer's live stream: every record, bounded per browser, never slowing the actors.
  const feed = new JournalFeed();
  const stopFeeding = journal.subscribe(feed.append);
  // Without a debug server the feed's history (up to the last 5,000 records and every payload they
  // hold) would only keep garbage alive.
  const dropFeed = () => {
    stopFeeding();
    feed.clear();
  };
  const tap = createInspectionTap({ clock, onRecord: journal.append });
  const directory = new ActorDirectory(clock, tap.stableId);
  const views = createSystemViews(directory);
  const processStartMs = clock.now() - Math.round(process.uptime() * 1000);
  const metrics = new MetricsCollector(clock, tap.stableId, processStartMs);
  const probeMetrics = new ProbeMetricsCollector(clock, tap.stableId, (uid) => views.syncLoop()?.pods[uid]?.pod.metadata, processStartMs);
  // The actor system's timers run on the lag meter's clock, which stamps each with its due time.
  const lag = new SyncLoopLagMeter(clock, tap.stableId);
  const eventLoop = startEventLoopDelayMeter(clock);
  const transitions = logTransitions(logger, tap.stableId);
  const inspect = (ev: InspectionEvent) => {
    // First: the lag is read when the timer's event is seen, before the journal's own work.
    lag.inspect(ev);
    tap.inspect(ev);
    directory.inspect(ev);
    metrics.inspect(ev);
    probeMetrics.inspect(ev);
    transitions(ev);
    // The syncLoop's refused pods, the volume manager's failed mounts and the eviction manager's
    // evictions become Warning events (emitted events are not in this stream).
    if (ev.type === '@xstate.actor') {
      const ref = ev.actorRef as AnyActorRef;
      const id = tap.stableId(ref);
      relayEmittedEvents(ref, id, events);
      if (id === 'syncLoop') logFailedPodActors(ref, logger);
    }
  };
  return { journal, feed, dropFeed, directory, views, metrics, probeMetrics, lag, eventLoop, inspect, checkpoint: tap.checkpoint };
}

/** A pod's worker that threw fails only that pod: said at error level, since it is a kubelet bug. */
function logFailedPodActors(syncLoop: AnyActorRef, logger: Logger): void {
  syncLoop.on('pod.actor.failed', (event: PodActorFailed) => {
    logger.error({ pod: `${event.pod.namespace}/${event.pod.name}`, podUID: event.pod.uid, actor: event.actorId, err: event.message }, 'A pod actor failed: the pod is failed, its containers stopped, and the kubelet goes on');
  });
}

const RELAYS: Record<string, (ref: AnyActorRef, recorder: () => EventRecorder | undefined) => void> = {
  syncLoop: (ref, recorder) => {
    relayAdmissionRejections(ref, recorder);
    relayResizeEvents(ref, recorder);
  },
  volumeManager: relayVolumeEvents,
  evictionManager: relayEvictionEvents,
  nodeShutdown: relayNodeShutdownEvents,
};

function relayEmittedEvents(ref: AnyActorRef, id: string, recorder: () => EventRecorder | undefined): void {
  if (Object.hasOwn(RELAYS, id)) RELAYS[id]!(ref, recorder);
}

/** Every machine's state changes at debug level, through one cached child logger per actor. */
function logTransitions(root: Logger, stableId: (ref: AnyActorRef) => string) {
  return (ev: InspectionEvent) => {
    if (ev.type !== '@xstate.snapshot' || !root.isLevelEnabled('debug')) return;
    const ref = ev.actorRef as AnyActorRef & { logic?: { root?: unknown; id?: string } };
    if (!ref.logic || !('root' in ref.logic)) return;
    const snap = ev.snapshot as { value?: unknown; status?: string };
    actorLogger(root, stableId(ref), ref.logic.id ?? 'machine').debug({ event: ev.event.type, value: snap.value, status: snap.status }, 'Actor transition');
  };
}
