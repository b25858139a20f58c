/**
 * The volume manager is pure: it emits `volume.mount.failed` for each failed set-up and
 * `volume.wait.timedOut` when a pod's wait for its volumes ran out; this hands each to the event
 * recorder as Go's FailedMount Warning events, with Go's texts ("MountVolume.SetUp failed for
 * volume …" from the operation executor, "Unable to attach or mount volumes: …" from SyncPod).
 */
import type { AnyActorRef } from 'xstate';
import type { VolumeMountFailed, VolumeWaitTimedOut } from '../../machines/volume-manager.machine.js';
import type { EventRecorder } from '../../ports/event-recorder.js';
import { podWarning } from '../../domain/status-manager/event-aggregation.js';

export function relayVolumeEvents(volumeManager: AnyActorRef, recorder: () => EventRecorder | undefined): void {
  const record = (pod: VolumeMountFailed['pod'], message: string) => recorder()?.recordEvent(podWarning(pod, 'FailedMount', message));
  volumeManager.on('volume.mount.failed', (event: VolumeMountFailed) => record(event.pod, event.eventText ?? `MountVolume.SetUp failed for volume "${event.volumeName}" : ${event.message}`));
  volumeManager.on('volume.wait.timedOut', (event: VolumeWaitTimedOut) => record(event.pod, `Unable to attach or mount volumes: ${event.message}`));
}
