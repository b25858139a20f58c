/**
 * Sends between actors are typed: each `@ts-expect-error` below is a send that must not compile
 * (an id no actor is registered under, an event its receiver does not handle, a wrong payload),
 * to a sibling through the system or to one of the sender's children.
 * If the helpers went back to an untyped `system.get(...)`, these lines would compile and their
 * unused `@ts-expect-error` would fail `tsc -p test`.
 */
import { podWorkerId, probeWorkerId, volumeActorId } from '../../src/domain/actor-ids.js';
import { sendToChild, sendToSystem, sendToSystemIfRunning, type ChildSendQueue, type SystemLookup, type SystemSendQueue } from '../../src/machines/system-sends.js';

declare const enqueue: SystemSendQueue;
declare const system: SystemLookup;
declare const childQueue: ChildSendQueue;

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

// A parent's sends to its own children, typed by the prefix of their ids.
sendToChild(childQueue, probeWorkerId('u1', 'main', 'liveness'), { type: 'probe.pod.terminating' });
sendToChild(childQueue, 'containerDeletor', { type: 'pod.deadContainers.remove', podUid: 'u1', containerId: null, keep: 0 });
// @ts-expect-error a probe worker does not take a pod worker's kill request
sendToChild(childQueue, probeWorkerId('u1', 'main', 'liveness'), { type: 'pod.kill.requested', reason: 'deleted' });
// @ts-expect-error a volume's remount carries the pod
sendToChild(childQueue, volumeActorId('u1', 'cfg'), { type: 'volume.remount' });
// @ts-expect-error no child kind `podWorker`: pod workers are `pod:<uid>`
sendToChild(childQueue, 'podWorker:u1', { type: 'pod.sync.requested', reason: 'pleg' });
