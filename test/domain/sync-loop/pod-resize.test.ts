import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/domain/pod/types.js';
import { decidePodConfigUpdate } from '../../../src/domain/sync-loop/pod-config-update.js';
import { decideWorkerTerminated } from '../../../src/domain/sync-loop/pod-ends.js';
import { retryDeferredResizes } from '../../../src/domain/sync-loop/pod-resize.js';
import type { SyncLoopCommand } from '../../../src/domain/sync-loop/commands.js';
import { pod, settings, state } from './fixtures.js';

/** A pod whose one container asks `cpu` and `memory` (requests = limits), at `generation`. */
function sized(uid: string, cpu: string, memory: string, generation = 1): Pod {
  const p = pod(uid, { containers: [{ name: 'main', image: 'busybox', resources: { requests: { cpu, memory }, limits: { cpu, memory } } }] });
  return { ...p, metadata: { ...p.metadata, generation, annotations: { 'kubernetes.io/config.source': 'api' } } };
}

const told = (commands: SyncLoopCommand[]) => commands.find((c) => c.kind === 'tellWorker');
const emitted = (commands: SyncLoopCommand[]) => commands.flatMap((c) => (c.kind === 'emit' ? [c.event] : []));
const cpuOf = (p: Pod | undefined) => p?.spec.containers[0]?.resources?.requests?.['cpu'];

describe('resizes in the syncLoop', () => {
  it('allocates a resize that fits: the worker runs the new spec, ResizeStarted, the allocation persisted', () => {
    const before = state({ a: { lifecycle: 'active', pod: sized('a', '200m', '128Mi') } });
    const { state: next, commands } = decidePodConfigUpdate(before, settings, { op: 'UPDATE', source: 'api', pods: [sized('a', '400m', '128Mi', 2)] });
    expect(told(commands)).toMatchObject({ podUid: 'a', message: { type: 'pod.spec.updated', resize: { pending: null, startedGeneration: 2 } } });
    expect(cpuOf((told(commands) as { message: { pod: Pod } }).message.pod)).toBe('400m');
    expect(emitted(commands)).toEqual([expect.objectContaining({ type: 'pod.resize.event', eventType: 'Normal', reason: 'ResizeStarted', message: expect.stringMatching(/^Pod resize started: .*"generation":2\}$/) })]);
    expect(next.resources.a?.main?.allocated?.requests?.cpu).toBe('400m');
    expect(commands.some((c) => c.kind === 'resourcesChanged')).toBe(true);
  });

  it('keeps an infeasible resize pending: the worker keeps the allocated spec, with the condition, and the allocation is kept', () => {
    const before = state({ a: { lifecycle: 'active', pod: sized('a', '200m', '128Mi') } });
    const { state: next, commands } = decidePodConfigUpdate(before, settings, { op: 'UPDATE', source: 'api', pods: [sized('a', '1000', '128Mi', 2)] });
    const message = (told(commands) as { message: { pod: Pod; resize: unknown } }).message;
    expect(cpuOf(message.pod)).toBe('200m');
    expect(message.resize).toEqual({ pending: { reason: 'Infeasible', message: "Node didn't have enough capacity: cpu, requested: 1000000, capacity: 2000", observedGeneration: 2 } });
    expect(emitted(commands)).toEqual([expect.objectContaining({ eventType: 'Warning', reason: 'ResizeInfeasible' })]);
    expect(next.pods.a?.resizePending?.reason).toBe('Infeasible');
    expect(next.pods.a?.pod.spec.containers[0]?.resources?.requests?.cpu).toBe('1000');
    expect(next.resources.a?.main?.allocated?.requests?.cpu).toBe('200m');

    // The same pending resize again: no second event. Reverted: the condition goes.
    const again = decidePodConfigUpdate(next, settings, { op: 'UPDATE', source: 'api', pods: [sized('a', '1000', '128Mi', 2)] });
    expect(emitted(again.commands)).toEqual([]);
    const reverted = decidePodConfigUpdate(again.state, settings, { op: 'UPDATE', source: 'api', pods: [sized('a', '200m', '128Mi', 3)] });
    expect(told(reverted.commands)).toMatchObject({ message: { resize: { pending: null } } });
    expect(reverted.state.pods.a?.resizePending).toBeUndefined();
  });

  it('defers a resize that does not fit beside the other pods, and allocates it once one of them is gone', () => {
    const before = state({ a: { lifecycle: 'active', pod: sized('a', '500m', '128Mi') }, b: { lifecycle: 'active', pod: sized('b', '1200m', '128Mi') } });
    const deferred = decidePodConfigUpdate(before, settings, { op: 'UPDATE', source: 'api', pods: [sized('a', '1', '128Mi', 2)] });
    expect(deferred.state.pods.a?.resizePending).toMatchObject({ reason: 'Deferred', message: expect.stringContaining("Node didn't have enough resource: cpu") });
    expect(emitted(deferred.commands)).toEqual([expect.objectContaining({ reason: 'ResizeDeferred' })]);

    const gone = decideWorkerTerminated({ ...before, ...deferred.state, pods: { ...deferred.state.pods, b: { ...deferred.state.pods.b!, lifecycle: 'terminating', removed: true } } }, 'b');
    expect(gone.state.pods.a?.resizePending).toBeUndefined();
    expect(gone.state.resources.a?.main?.allocated?.requests?.cpu).toBe('1');
    expect(gone.commands).toContainEqual(expect.objectContaining({ kind: 'tellWorker', podUid: 'a', message: expect.objectContaining({ resize: { pending: null, startedGeneration: 2 } }) }));
  });

  it('counts the other pods at their allocation, not at a pending resize of theirs', () => {
    const pendingBig = state({
      a: { lifecycle: 'active', pod: sized('a', '1900m', '128Mi'), resizePending: { reason: 'Deferred', message: 'm', observedGeneration: 2, since: 0 } },
    }, { resources: { a: { main: { allocated: { requests: { cpu: '500m', memory: '128Mi' }, limits: { cpu: '500m', memory: '128Mi' } } } } } });
    const { commands } = decidePodConfigUpdate(pendingBig, settings, { op: 'ADD', source: 'api', pods: [sized('n', '1', '128Mi')] });
    expect(commands.map((c) => c.kind)).toContain('startWorker');
  });

  it('after a restart admits a pod at its kept allocation, then weighs the resize its spec asks', () => {
    const kept = state({}, { resources: { a: { main: { allocated: { requests: { cpu: '200m', memory: '128Mi' }, limits: { cpu: '200m', memory: '128Mi' } } } } } });
    const { commands } = decidePodConfigUpdate(kept, settings, { op: 'ADD', source: 'api', pods: [sized('a', '400m', '128Mi', 2)] });
    const start = commands.find((c) => c.kind === 'startWorker') as { pod: Pod; assignment: Record<string, unknown> };
    expect(cpuOf(start.pod)).toBe('200m');
    expect(start.assignment).toMatchObject({ main: { allocated: { requests: { cpu: '200m' } } } });
    expect(told(commands)).toMatchObject({ message: { resize: { startedGeneration: 2 } } });
    expect(cpuOf((told(commands) as { message: { pod: Pod } }).message.pod)).toBe('400m');
  });
});

describe('deferred resizes weighed again', () => {
  /** a and c each deferred from 400m to 700m beside b's 700m: room for one of them once retried. */
  const competing = (cPriority: number) => state({
    a: { lifecycle: 'active', pod: sized('a', '700m', '128Mi', 2), resizePending: { reason: 'Deferred', message: 'm', observedGeneration: 2, since: 0 } },
    b: { lifecycle: 'active', pod: sized('b', '700m', '128Mi') },
    c: { lifecycle: 'active', pod: { ...sized('c', '700m', '128Mi', 2), spec: { ...sized('c', '700m', '128Mi', 2).spec, priority: cPriority } }, resizePending: { reason: 'Deferred', message: 'm', observedGeneration: 2, since: 1 } },
  }, { resources: {
    a: { main: { allocated: { requests: { cpu: '400m', memory: '128Mi' }, limits: { cpu: '400m', memory: '128Mi' } } } },
    c: { main: { allocated: { requests: { cpu: '400m', memory: '128Mi' }, limits: { cpu: '400m', memory: '128Mi' } } } },
  } });

  it('in Go\'s order: the higher priority first, else the one deferred longest; the timer set while one stays deferred', () => {
    const byPriority = retryDeferredResizes(competing(10));
    expect(byPriority.state.resources.c?.main?.allocated?.requests?.cpu).toBe('700m');
    expect(byPriority.state.pods.a?.resizePending?.reason).toBe('Deferred');
    expect(byPriority.commands.at(-1)).toEqual({ kind: 'scheduleResizeRetry', delayMs: 3 * 60 * 1000 });

    const byAge = retryDeferredResizes(competing(0));
    expect(byAge.state.resources.a?.main?.allocated?.requests?.cpu).toBe('700m');
    expect(byAge.state.pods.c?.resizePending?.reason).toBe('Deferred');
  });

  it('after a pod update that shrinks another pod, and cancels the timer once none is deferred', () => {
    const before = competing(0);
    const { state: next, commands } = decidePodConfigUpdate(before, settings, { op: 'UPDATE', source: 'api', pods: [sized('b', '100m', '128Mi', 2)] });
    expect(next.resources.a?.main?.allocated?.requests?.cpu).toBe('700m');
    expect(next.resources.c?.main?.allocated?.requests?.cpu).toBe('700m');
    expect(commands).toContainEqual(expect.objectContaining({ kind: 'tellWorker', podUid: 'c', message: expect.objectContaining({ resize: { pending: null, startedGeneration: 2 } }) }));
    expect(commands.at(-1)).toEqual({ kind: 'scheduleResizeRetry', delayMs: null });
  });

  it('sets no timer when nothing is deferred', () => {
    expect(retryDeferredResizes(state({ b: { lifecycle: 'active', pod: sized('b', '700m', '128Mi') } })).commands).toEqual([]);
  });

  it('keeps a resize deferred again where it was in the queue', () => {
    const again = decidePodConfigUpdate(competing(0), settings, { op: 'UPDATE', source: 'api', pods: [sized('a', '1', '128Mi', 3)] });
    expect(again.state.pods.a?.resizePending).toMatchObject({ reason: 'Deferred', observedGeneration: 3, since: 0 });
  });
});
