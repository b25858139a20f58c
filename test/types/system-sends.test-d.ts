/**
 * Sends between actors are typed: each `@ts-expect-error` below is a send that must not compile
 * (an id no actor is registered under, an event its receiver does not handle, a wrong payload).
 * If the helpers went back to an untyped `system.get(...)`, these lines would compile and their
 * unused `@ts-expect-error` would fail `tsc -p test/types`.
 */
import { podWorkerId } from '../../src/domain/actor-ids.js';
import { sendToSystem, sendToSystemIfRunning, type SystemLookup, type SystemSendQueue } from '../../src/machines/system-sends.js';

declare const enqueue: SystemSendQueue;
declare const system: SystemLookup;

// The right event with the right payload, to a fixed id and to a pod worker's id.
sendToSystem(enqueue, system, 'volumeManager', { type: 'volumes.pod.release', podUid: 'u1', removeDirectory: true });
sendToSystemIfRunning(enqueue, system, podWorkerId('u1'), { type: 'pod.volumes.changed', unmounted: [] });

// @ts-expect-error a misspelt id: no actor is registered as `volumeManger`
sendToSystem(enqueue, system, 'volumeManger', { type: 'volumes.pod.release', podUid: 'u1', removeDirectory: true });

// @ts-expect-error an event the receiver does not handle: the status manager knows nothing of volumes
sendToSystemIfRunning(enqueue, system, 'statusManager', { type: 'volumes.pod.release', podUid: 'u1', removeDirectory: true });

// @ts-expect-error a wrong payload: removeDirectory is a boolean
sendToSystem(enqueue, system, 'volumeManager', { type: 'volumes.pod.release', podUid: 'u1', removeDirectory: 'yes' });

// @ts-expect-error a payload missing a field: the eviction manager needs to know whether the pod was evicted
sendToSystem(enqueue, system, 'evictionManager', { type: 'pod.eviction.finished', podUid: 'u1' });

// @ts-expect-error a pod worker does not take the volume manager's events
sendToSystemIfRunning(enqueue, system, podWorkerId('u1'), { type: 'volumes.pods.known', podUids: [] });

// One event to several ids: it must suit each of them.
for (const id of ['containerManager', 'evictionManager'] as const) sendToSystemIfRunning(enqueue, system, id, { type: 'runtime.up' });
for (const id of ['containerManager', 'evictionManager'] as const) {
  // @ts-expect-error the eviction manager does not handle the container manager's cgroup sweep
  sendToSystemIfRunning(enqueue, system, id, { type: 'cgroups.pods.running', podUids: [] });
}
