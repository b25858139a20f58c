import { describe, expect, it } from 'vitest';
import { decidePlegEvents, decideRuntimeHealth } from '../../../src/domain/sync-loop/runtime-events.js';
import { settings, state } from './fixtures.js';

describe('decidePlegEvents', () => {
  it('syncs each pod with an event once, asks for the older dead instances of a container that died, and for the pod\'s stopped sandboxes but its newest', () => {
    const before = state({ a: { lifecycle: 'active' }, t: { lifecycle: 'terminating' }, r: { lifecycle: 'rejected' } });
    const { commands } = decidePlegEvents(before, settings, {
      events: [{ podUid: 'a', type: 'ContainerStarted' }, { podUid: 'a', type: 'ContainerDied', containerId: 'c1' }, { podUid: 't', type: 'ContainerDied', containerId: 'c2' }, { podUid: 'r', type: 'ContainerStarted' }],
    });
    expect(commands).toEqual([
      { kind: 'tellWorker', podUid: 'a', message: { type: 'pod.sync.requested', reason: 'pleg' } },
      // Its events go with the request, for the worker to tell whether its last view shows them (a's has one naming no container).
      { kind: 'tellWorker', podUid: 't', message: { type: 'pod.sync.requested', reason: 'pleg', runtimeEvents: [{ type: 'ContainerDied', containerId: 'c2' }] } },
      { kind: 'removeDeadContainers', podUid: 'a', containerId: 'c1', keep: 2 },
      { kind: 'removeDeadContainers', podUid: 't', containerId: 'c2', keep: 2 },
      { kind: 'removeDeadSandboxes', podUid: 'a', keep: 1 },
      { kind: 'removeDeadSandboxes', podUid: 't', keep: 1 },
    ]);
  });

  it('asks the deletors only for what the relist\'s counts show they would remove', () => {
    const before = state({ a: { lifecycle: 'active' }, b: { lifecycle: 'active' } });
    const { commands } = decidePlegEvents(before, settings, {
      events: [{ podUid: 'a', type: 'ContainerDied', containerId: 'c1' }, { podUid: 'b', type: 'ContainerDied', containerId: 'c2' }, { podUid: 'b', type: 'ContainerDied', containerId: 's2' }],
      deadCounts: {
        // a's dead container is one of 3 exited instances of its name (2 are kept), and a has 2 sandboxes.
        a: { sandboxes: 2, exited: 3, exitedOfName: { c1: 3 } },
        // b's are its only dead instance and its only sandbox: nothing to remove.
        b: { sandboxes: 1, exited: 1, exitedOfName: { c2: 1 } },
      },
    });
    expect(commands.filter((c) => c.kind !== 'tellWorker')).toEqual([
      { kind: 'removeDeadContainers', podUid: 'a', containerId: 'c1', keep: 2 },
      { kind: 'removeDeadSandboxes', podUid: 'a', keep: 1 },
    ]);
  });

  it('a pod whose content may go: all its dead containers asked for once a batch, none when the counts show none left', () => {
    const before = state({ d: { lifecycle: 'terminated', removed: true }, e: { lifecycle: 'terminated', removed: true } });
    const { commands } = decidePlegEvents(before, settings, {
      events: [{ podUid: 'd', type: 'ContainerDied', containerId: 'c1' }, { podUid: 'd', type: 'ContainerDied', containerId: 's1' }, { podUid: 'e', type: 'ContainerRemoved', containerId: 'c2' }],
      deadCounts: { d: { sandboxes: 1, exited: 1, exitedOfName: { c1: 1 } }, e: { sandboxes: 0, exited: 0, exitedOfName: {} } },
    });
    expect(commands.filter((c) => c.kind !== 'tellWorker')).toEqual([
      { kind: 'removeDeadContainers', podUid: 'd', containerId: null, keep: 0 },
      { kind: 'removeDeadSandboxes', podUid: 'd', keep: 0 },
    ]);
  });

  it('while the runtime is not ready: no syncs, but the running pods are kept and a dropped pod is marked unseen', () => {
    const before = state({ a: { lifecycle: 'active' } }, { runtime: { healthy: false, reason: 'down' } });
    const { state: next, commands } = decidePlegEvents(before, settings, { events: [{ podUid: 'a', type: 'ContainerDied', containerId: 'c' }], runningPodUids: ['a', 'x'], discardedPodUids: ['a'] });
    expect(commands).toEqual([{ kind: 'tellWorker', podUid: 'a', message: { type: 'pod.runtime.unseen' } }]);
    expect(next.runtimePodUids).toEqual(['a', 'x']);
    expect(next.orphans).toEqual({});
  });

  it('a running pod no source has becomes an orphan with a runtime-only worker, once the sources were seen', () => {
    const early = decidePlegEvents(state({}, { sourcesReady: false }), settings, { events: [], runningPodUids: ['x'] });
    expect(early.commands).toEqual([]);
    const { state: next, commands } = decidePlegEvents(state(), settings, { events: [], runningPodUids: ['x'] });
    expect(commands).toEqual([{ kind: 'startRuntimeOnlyWorker', podUid: 'x' }]);
    expect(next.orphans).toEqual({ x: { deferred: null } });
  });
});

describe('decideRuntimeHealth', () => {
  it('back from an outage: every running pod syncs, then orphans are killed', () => {
    const before = state({ a: { lifecycle: 'active' }, d: { lifecycle: 'terminated' } }, { runtime: { healthy: false, reason: 'down' }, runtimePodUids: ['a', 'x'] });
    const { state: next, commands } = decideRuntimeHealth(before, { health: 'ready', reason: '' });
    expect(commands).toEqual([
      { kind: 'tellWorker', podUid: 'a', message: { type: 'pod.sync.requested', reason: 'runtime ready' } },
      { kind: 'startRuntimeOnlyWorker', podUid: 'x' },
    ]);
    expect(next.runtime).toEqual({ healthy: true, reason: '' });
  });

  it('going down or staying up asks for nothing', () => {
    expect(decideRuntimeHealth(state({ a: { lifecycle: 'active' } }), { health: 'down', reason: 'socket gone' })).toMatchObject({ commands: [], state: { runtime: { healthy: false, reason: 'socket gone' } } });
    expect(decideRuntimeHealth(state({ a: { lifecycle: 'active' } }), { health: 'ready', reason: '' }).commands).toEqual([]);
  });
});
