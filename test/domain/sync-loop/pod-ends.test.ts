import { describe, expect, it } from 'vitest';
import { decideCrashedActor, decideEviction, decideWorkerTerminated } from '../../../src/domain/sync-loop/pod-ends.js';
import { pod, state } from './fixtures.js';

describe('decideWorkerTerminated', () => {
  it('a deleted pod: worker and probes stopped, volumes and directory released, dead containers, sandboxes and cgroup gone', () => {
    const deleted = { ...pod('a'), metadata: { ...pod('a').metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } };
    const before = state({ a: { lifecycle: 'terminating', pod: deleted, probedStarts: { 'main:liveness': 5 } }, b: { lifecycle: 'active' } });
    const { state: next, commands } = decideWorkerTerminated(before, 'a');
    expect(commands).toEqual([
      { kind: 'stop', id: 'pod:a' },
      { kind: 'releaseVolumes', podUid: 'a', removeDirectory: true },
      { kind: 'stop', id: 'probe:a:main:liveness' },
      { kind: 'removeDeadContainers', podUid: 'a', containerId: null, keep: 0 },
      { kind: 'removeDeadSandboxes', podUid: 'a', keep: 0 },
      { kind: 'keepPodCgroups', podUids: ['b'] },
    ]);
    expect(next.pods.a).toMatchObject({ lifecycle: 'terminated', probedStarts: {} });
  });

  it('a deleted pod whose worker named its exited containers: those go as named, its sandboxes once they are gone; with none named, its sandboxes at once', () => {
    const before = state({ a: { lifecycle: 'terminating', removed: true } });
    const removals = (ids: string[]) => decideWorkerTerminated(before, 'a', ids).commands.filter((c) => c.kind === 'removeDeadContainers' || c.kind === 'removeDeadSandboxes');
    expect(removals(['c1', 'c0'])).toEqual([{ kind: 'removeDeadContainers', podUid: 'a', containerId: null, keep: 0, containerIds: ['c1', 'c0'] }]);
    expect(removals([])).toEqual([{ kind: 'removeDeadSandboxes', podUid: 'a', keep: 0 }]);
  });

  it('a pod removed from its source is forgotten; an evicted one is answered to whoever asked for the kill', () => {
    const before = state({ a: { lifecycle: 'terminating', removed: true, evicting: 'nodeShutdown' } });
    const { state: next, commands } = decideWorkerTerminated(before, 'a');
    expect(commands).toContainEqual({ kind: 'evictionFinished', requester: 'nodeShutdown', podUid: 'a', evicted: true });
    expect(next.pods).toEqual({});
  });

  it('an orphan is forgotten and the source pod that waited for it is added', () => {
    const before = state({}, { orphans: { o: { deferred: { pod: pod('o'), source: 'file' } } } });
    const { state: next, commands } = decideWorkerTerminated(before, 'o');
    expect(commands.slice(2)).toEqual([{ kind: 'keepPodCgroups', podUids: [] }, { kind: 'addDeferred', pod: pod('o'), source: 'file' }]);
    expect(next.orphans).toEqual({});
  });
});

describe('decideEviction', () => {
  it('kills an active pod as an eviction; answers at once for any other', () => {
    const eviction = { reason: 'Evicted', message: 'The node was low on resource: memory.' };
    const { state: next, commands } = decideEviction(state({ a: { lifecycle: 'active' } }), { podUid: 'a', gracePeriodSeconds: 0, eviction, requester: 'evictionManager' as const });
    expect(commands).toEqual([{ kind: 'tellWorker', podUid: 'a', message: { type: 'pod.kill.requested', gracePeriodSeconds: 0, reason: 'evicted', eviction } }]);
    expect(next.pods.a).toMatchObject({ lifecycle: 'terminating', evicting: 'evictionManager' });
    expect(decideEviction(state({ a: { lifecycle: 'terminating' } }), { podUid: 'a', gracePeriodSeconds: 0, eviction, requester: 'evictionManager' as const }).commands).toEqual([{ kind: 'evictionFinished', requester: 'evictionManager', podUid: 'a', evicted: false }]);
  });
});

describe('decideCrashedActor', () => {
  it('fails the pod of a crashed worker and kills what runs of it with a runtime-only worker', () => {
    const { state: next, commands } = decideCrashedActor(state({ a: { lifecycle: 'active' } }), { id: 'pod:a', uid: 'a', message: 'boom' });
    expect(commands.map((c) => c.kind)).toEqual(['stop', 'emit', 'stop', 'reportStatus', 'emit', 'startRuntimeOnlyWorker']);
    expect(next.pods.a?.lifecycle).toBe('rejected');
    expect(next.orphans).toEqual({ a: { deferred: null } });
  });

  it('a crashed runtime-only worker is forgotten; a crashed probe of an orphan leaves it be', () => {
    const orphaned = state({}, { orphans: { o: { deferred: null } } });
    expect(decideCrashedActor(orphaned, { id: 'pod:o', uid: 'o', message: 'x' }).state.orphans).toEqual({});
    expect(decideCrashedActor(orphaned, { id: 'probe:o:c:liveness', uid: 'o', message: 'x' }).state.orphans).toEqual({ o: { deferred: null } });
  });
});
