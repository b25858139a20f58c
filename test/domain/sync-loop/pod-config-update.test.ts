import { describe, expect, it } from 'vitest';
import { decidePodConfigUpdate } from '../../../src/domain/sync-loop/pod-config-update.js';
import { node, pod, settings, state } from './fixtures.js';

describe('decidePodConfigUpdate', () => {
  it('ADD admits a pod that fits and starts its worker', () => {
    const { state: next, commands } = decidePodConfigUpdate(state(), settings, { op: 'ADD', source: 'api', pods: [pod('a')] });
    expect(commands).toEqual([{ kind: 'startWorker', pod: pod('a'), assignment: {} }]);
    expect(next.pods.a?.lifecycle).toBe('active');
  });

  it('ADD refuses a pod whose node selector the node does not match: Failed status reported and emitted, no worker', () => {
    const picky = pod('p', { nodeSelector: { disk: 'hdd' } });
    const { state: next, commands } = decidePodConfigUpdate(state(), settings, { op: 'ADD', source: 'api', pods: [picky] });
    expect(commands.map((c) => c.kind)).toEqual(['reportStatus', 'emit']);
    expect(commands[1]).toMatchObject({ event: { type: 'pod.admission.rejected', reason: 'NodeAffinity', pod: { uid: 'p' } } });
    expect(next.pods.p).toMatchObject({ lifecycle: 'rejected', status: { phase: 'Failed', reason: 'NodeAffinity' } });
  });

  it('admits pods of one update against each other: the second of two that each fit alone is refused', () => {
    const small = state({}, { node: { ...node, allocatable: { ...node.allocatable, pods: 1 } } });
    const { commands } = decidePodConfigUpdate(small, settings, { op: 'ADD', source: 'api', pods: [pod('a'), pod('b')] });
    expect(commands.map((c) => c.kind)).toEqual(['startWorker', 'reportStatus', 'emit']);
    expect(commands[2]).toMatchObject({ event: { reason: 'OutOfpods', pod: { uid: 'b' } } });
  });

  it('a refused pod stays Failed when added again, and an active one gets its new spec', () => {
    const before = state({ r: { lifecycle: 'rejected' }, a: { lifecycle: 'active' } });
    const { state: next, commands } = decidePodConfigUpdate(before, settings, { op: 'ADD', source: 'api', pods: [pod('r'), pod('a')] });
    expect(commands).toEqual([{ kind: 'tellWorker', podUid: 'a', message: { type: 'pod.spec.updated', pod: pod('a') } }]);
    expect(next.pods.r?.lifecycle).toBe('rejected');
  });

  it('DELETE kills with the deletion grace period and stops the probes; REMOVE of a finished pod forgets it', () => {
    const deleted = { ...pod('a'), metadata: { ...pod('a').metadata, deletionGracePeriodSeconds: 3 } };
    const before = state({ a: { lifecycle: 'active', probedStarts: { 'main:readiness': 1 } }, t: { lifecycle: 'terminated' } });
    const { state: next, commands } = decidePodConfigUpdate(before, settings, { op: 'DELETE', source: 'api', pods: [deleted] });
    expect(commands).toEqual([
      { kind: 'tellWorker', podUid: 'a', message: { type: 'pod.kill.requested', gracePeriodSeconds: 3, reason: 'deleted' } },
      { kind: 'tellProbe', id: 'probe:a:main:readiness', message: { type: 'probe.pod.terminating' } },
    ]);
    expect(next.pods.a).toMatchObject({ lifecycle: 'terminating', removed: false });
    const removed = decidePodConfigUpdate(before, settings, { op: 'REMOVE', source: 'api', pods: [pod('t')] });
    expect(removed.commands).toEqual([]);
    expect(removed.state.pods.t).toBeUndefined();
  });

  it('a uid whose orphan is still being killed waits: its latest form is kept for later, nothing starts', () => {
    const before = state({}, { orphans: { o: { deferred: null } } });
    const first = decidePodConfigUpdate(before, settings, { op: 'ADD', source: 'file', pods: [pod('o')] });
    const second = decidePodConfigUpdate(first.state, settings, { op: 'UPDATE', source: 'file', pods: [pod('o', { hostNetwork: true })] });
    expect([...first.commands, ...second.commands]).toEqual([]);
    expect(second.state.orphans.o?.deferred).toEqual({ pod: pod('o', { hostNetwork: true }), source: 'file' });
  });

  it('RECONCILE wakes the worker only when a readiness gate changed what Ready says', () => {
    const gated = pod('g', { readinessGates: [{ conditionType: 'example.com/lb' }] });
    const before = state({ g: { lifecycle: 'active', pod: gated } });
    const unchanged = decidePodConfigUpdate(before, settings, { op: 'RECONCILE', source: 'api', pods: [gated] });
    expect(unchanged.commands).toEqual([]);
    // Someone set the gate False while the pod shows Ready True: Ready must follow.
    const closed = { ...gated, status: { conditions: [{ type: 'example.com/lb', status: 'False' as const }, { type: 'Ready', status: 'True' as const }] } };
    const changed = decidePodConfigUpdate(before, settings, { op: 'RECONCILE', source: 'api', pods: [closed] });
    expect(changed.commands).toEqual([{ kind: 'tellWorker', podUid: 'g', message: { type: 'pod.status.reconciled', pod: closed } }]);
  });

  it('in cluster mode a pod node affinity alone refused waits for the Node to be read again, once; after the read it is admitted or refused for good', () => {
    const live = { ...settings, liveNode: true };
    const zoned = pod('z', { nodeSelector: { zone: 'a' } });
    const first = decidePodConfigUpdate(state(), live, { op: 'ADD', source: 'api', pods: [zoned] });
    expect(first.commands).toEqual([{ kind: 'refreshNode' }]);
    expect(first.state).toMatchObject({ awaitingNode: { z: { asked: true } }, nodeRefreshing: true, pods: {} });
    // A second such pod while the read is under way waits for the next read.
    const second = decidePodConfigUpdate(first.state, live, { op: 'ADD', source: 'api', pods: [pod('y', { nodeSelector: { zone: 'a' } })] });
    expect(second.commands).toEqual([]);
    const final = decidePodConfigUpdate(state(), live, { op: 'ADD', source: 'api', pods: [zoned], afterNodeRefresh: true });
    expect(final.commands.map((c) => c.kind)).toEqual(['reportStatus', 'emit']);
  });
});
