/**
 * Go's rejectPod records a Warning event on the refused pod, with admission's reason and message
 * (without the status's "Pod was rejected: " prefix). The syncLoop is pure: it emits
 * `pod.admission.rejected`, and this hands each to the event recorder, which posts it to the API
 * server in cluster mode and logs it standalone (at --v=2, as Go's log sink does).
 */
import type { AnyActorRef } from 'xstate';
import type { PodAdmissionRejected } from '../../machines/sync-loop.machine.js';
import { podWarning } from '../../domain/status-manager/event-aggregation.js';
import type { EventRecorder } from '../../ports/event-recorder.js';

/** Subscribes to the syncLoop's rejections; `recorder` is read per event (it exists after run.eventRecorder). */
export function relayAdmissionRejections(syncLoop: AnyActorRef, recorder: () => EventRecorder | undefined): void {
  syncLoop.on('pod.admission.rejected', (event: PodAdmissionRejected) => {
    recorder()?.recordEvent(podWarning(event.pod, event.reason, event.message));
  });
}
