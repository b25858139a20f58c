/**
 * Go's resize events (ResizeStarted, ResizeDeferred, ResizeInfeasible from the allocation; ResizeCompleted,
 * ResizeError from the pod's sync): the syncLoop, pure, emits `pod.resize.event`, and this hands each
 * to the event recorder.
 */
import type { AnyActorRef } from 'xstate';
import type { PodResizeEvent } from '../../machines/sync-loop.machine.js';
import type { EventRecorder } from '../../ports/event-recorder.js';

export function relayResizeEvents(syncLoop: AnyActorRef, recorder: () => EventRecorder | undefined): void {
  syncLoop.on('pod.resize.event', (event: PodResizeEvent) => {
    recorder()?.recordEvent({ object: { kind: 'Pod', apiVersion: 'v1', ...event.pod }, type: event.eventType, reason: event.reason, message: event.message });
  });
}
