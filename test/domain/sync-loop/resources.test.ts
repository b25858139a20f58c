import { describe, expect, it } from 'vitest';
import { decidePodConfigUpdate } from '../../../src/domain/sync-loop/pod-config-update.js';
import { decideWorkerTerminated } from '../../../src/domain/sync-loop/pod-ends.js';
import { dropStaleResources, releaseResources } from '../../../src/domain/sync-loop/resources.js';
import { pod, settings, state } from './fixtures.js';

describe('the resource managers in the syncLoop', () => {
  it('releases a pod’s share when its worker is done, and says so once', () => {
    const s = state({ a: { lifecycle: 'terminating' } }, { resources: { a: { main: { cpus: [1] } }, b: { main: { cpus: [2] } } } });
    const { state: next, commands } = decideWorkerTerminated(s, 'a');
    expect(next.resources).toEqual({ b: { main: { cpus: [2] } } });
    expect(commands.filter((c) => c.kind === 'resourcesChanged')).toEqual([{ kind: 'resourcesChanged', assignments: { b: { main: { cpus: [2] } } } }]);
  });

  it('asks for nothing when the pod had no share', () => {
    const s = state({}, { resources: { b: { main: { cpus: [2] } } } });
    expect(releaseResources(s, 'a')).toEqual({ state: s, commands: [] });
  });

  it('drops, once every source was seen, the shares of pods neither running nor being killed', () => {
    const s = state({ a: { lifecycle: 'active' }, t: { lifecycle: 'terminated' } }, { resources: { a: { main: { cpus: [1] } }, t: { main: { cpus: [2] } }, gone: { main: { cpus: [3] } } } });
    const { state: next, commands } = dropStaleResources(s);
    expect(next.resources).toEqual({ a: { main: { cpus: [1] } } });
    expect(commands).toEqual([{ kind: 'resourcesChanged', assignments: { a: { main: { cpus: [1] } } } }]);
  });

  it('starts an admitted pod’s worker with the share it had before a restart, unchanged', () => {
    const s = state({}, { resources: { a: { main: { cpus: [1] } } } });
    const { state: next, commands } = decidePodConfigUpdate(s, settings, { op: 'ADD', source: 'api', pods: [pod('a')] });
    expect(commands).toContainEqual({ kind: 'startWorker', pod: pod('a'), assignment: { main: { cpus: [1] } } });
    expect(next.resources).toEqual({ a: { main: { cpus: [1] } } });
  });

  it('drops the kept share of a pod admission now refuses', () => {
    const s = state({}, { resources: { a: { main: { cpus: [1] } } } });
    const refused = pod('a', { nodeName: 'another-node' });
    const { state: next, commands } = decidePodConfigUpdate(s, settings, { op: 'ADD', source: 'api', pods: [refused] });
    expect(next.resources).toEqual({});
    expect(commands).toContainEqual({ kind: 'resourcesChanged', assignments: {} });
  });
});
