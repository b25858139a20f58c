/**
 * The eviction manager's Warning events (Go records them with its recorder): EvictionThresholdMet
 * on the Node, and Evicted on each evicted pod. The machine is pure: it emits them, and this hands
 * each to the event recorder. Go's event annotations (offending containers, starved resource) are
 * not carried: our recorder posts plain events.
 */
import type { AnyActorRef } from 'xstate';
import type { PodEvictedEmitted, ThresholdMetEmitted } from '../../machines/eviction-manager.machine.js';
import { podWarning } from '../../domain/status-manager/event-aggregation.js';
import type { EventRecorder } from '../../ports/event-recorder.js';

/** Subscribes to the eviction manager's events; `recorder` is read per event (it exists after run.eventRecorder). */
export function relayEvictionEvents(evictionManager: AnyActorRef, recorder: () => EventRecorder | undefined): void {
  evictionManager.on('eviction.threshold.met', (event: ThresholdMetEmitted) => {
    // Go refers to the Node by name, its name standing in for the uid (nodeRef).
    recorder()?.recordEvent({ object: { kind: 'Node', name: event.nodeName, uid: event.nodeName, namespace: '' }, type: 'Warning', reason: event.reason, message: event.message });
  });
  evictionManager.on('pod.evicted', (event: PodEvictedEmitted) => {
    recorder()?.recordEvent(podWarning(event.pod, event.reason, event.message));
  });
}
