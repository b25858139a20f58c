import { describe, expect, it } from 'vitest';
import { SimulatedClock, type AnyActorRef, type InspectionEvent } from 'xstate';
import { MetricsCollector } from '../../../src/actors/view/metrics-collector.js';
import type { Pod, PodStatus } from '../../../src/domain/pod/types.js';

const pod = (uid: string): Pod => ({ metadata: { name: uid, namespace: 'ns', uid }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
const running: PodStatus = { containerStatuses: [{ name: 'c', image: 'busybox', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: '2026-01-01T00:00:00Z' } } }] };

/** A collector fed inspection events as the system would, by the actors' stable ids. */
function collector() {
  const clock = new SimulatedClock();
  const metrics = new MetricsCollector(clock, (ref) => (ref as unknown as { id: string }).id, 0);
  const ref = (id: string) => ({ id }) as unknown as AnyActorRef;
  const syncLoop = (event: Record<string, unknown>) => metrics.inspect({ type: '@xstate.event', actorRef: ref('syncLoop'), event } as unknown as InspectionEvent);
  const worker = (uid: string, value: string, status = 'active') =>
    metrics.inspect({ type: '@xstate.snapshot', actorRef: ref(`pod:${uid}`), snapshot: { value, status }, event: { type: 'x' } } as unknown as InspectionEvent);
  return { clock, metrics, syncLoop, worker };
}

describe('MetricsCollector', () => {
  it('counts each pod\'s start once, and forgets the pods removed, started or not', () => {
    const { clock, metrics, syncLoop } = collector();
    syncLoop({ type: 'pod.config.updated', op: 'ADD', pods: [pod('a'), pod('b'), pod('c')] });
    clock.increment(1_500);
    syncLoop({ type: 'pod.status.updated', podUid: 'a', status: running });
    syncLoop({ type: 'pod.status.updated', podUid: 'b', status: running });
    syncLoop({ type: 'pod.status.updated', podUid: 'a', status: running });
    expect(metrics.startedPods).toBe(2);
    expect(metrics.trackedPods).toBe(3);
    syncLoop({ type: 'pod.config.updated', op: 'REMOVE', pods: [pod('a'), pod('b'), pod('c')] });
    expect(metrics.trackedPods).toBe(0);
    expect(metrics.startedPods).toBe(2);
  });

  it('times a worker\'s sync, and forgets one stopped in the middle of it', () => {
    const { clock, metrics, worker } = collector();
    worker('a', 'syncing');
    worker('b', 'syncing');
    worker('c', 'syncing');
    clock.increment(40);
    worker('a', 'idle');
    expect(metrics.podWorkerSync.count).toBe(1);
    expect(metrics.trackedPods).toBe(2);
    worker('b', 'syncing', 'stopped');
    expect(metrics.podWorkerSync.count).toBe(1);
    // One that leaves `syncing` for its final state has its last sync timed.
    worker('c', 'terminated', 'done');
    expect(metrics.podWorkerSync.count).toBe(2);
    expect(metrics.trackedPods).toBe(0);
  });
});
