import { describe, expect, it } from 'vitest';
import { decidePodStatus } from '../../../src/domain/sync-loop/pod-status.js';
import type { PodStatus } from '../../../src/domain/pod/types.js';
import { pod, state } from './fixtures.js';

const probed = pod('a', { containers: [{ name: 'main', image: 'busybox', readinessProbe: { exec: { command: ['true'] } } }] });
const running = (startedAt: string, phase: PodStatus['phase'] = 'Running'): PodStatus => ({
  phase, podIP: '10.1.0.5',
  containerStatuses: [{ name: 'main', ready: false, restartCount: 0, image: 'busybox', imageID: '', containerID: 'containerd://c1', state: { running: { startedAt } } }],
});

describe('decidePodStatus', () => {
  it('starts a probe worker for a container that started, and tells it when the container restarts', () => {
    const first = decidePodStatus(state({ a: { lifecycle: 'active', pod: probed } }), 'a', running('2026-01-01T00:00:00Z'));
    expect(first.commands).toEqual([{
      kind: 'startProbe',
      probe: { id: 'probe:a:main:readiness', podUid: 'a', podIP: '10.1.0.5', container: probed.spec.containers[0], containerId: 'c1', probe: 'readiness', containerStartedAtMs: Date.parse('2026-01-01T00:00:00Z'), containerRef: expect.objectContaining({ fieldPath: 'spec.containers{main}' }) },
    }]);
    const same = decidePodStatus(first.state, 'a', running('2026-01-01T00:00:00Z'));
    expect(same.commands).toEqual([]);
    const again = decidePodStatus(first.state, 'a', running('2026-01-01T00:01:00Z'));
    expect(again.commands).toEqual([{ kind: 'tellProbe', id: 'probe:a:main:readiness', message: { type: 'probe.container.restarted', containerId: 'c1', containerStartedAtMs: Date.parse('2026-01-01T00:01:00Z'), podIP: '10.1.0.5' } }]);
  });

  it('starts the probes of a running sidecar, never those an ordinary init container names', () => {
    const probe = { exec: { command: ['true'] } };
    const withSidecar = pod('a', {
      initContainers: [{ name: 'setup', image: 'busybox', livenessProbe: probe }, { name: 'side', image: 'busybox', restartPolicy: 'Always', startupProbe: probe, livenessProbe: probe }],
      containers: [{ name: 'main', image: 'busybox' }],
    });
    const initRunning = (name: string, id: string) => ({ name, ready: false, restartCount: 0, image: 'busybox', imageID: '', containerID: `containerd://${id}`, state: { running: { startedAt: '2026-01-01T00:00:00Z' } } });
    const status: PodStatus = { phase: 'Pending', podIP: '10.1.0.5', initContainerStatuses: [initRunning('setup', 'i1'), initRunning('side', 'i2')] };
    const started = decidePodStatus(state({ a: { lifecycle: 'active', pod: withSidecar } }), 'a', status).commands
      .flatMap((c) => (c.kind === 'startProbe' ? [[c.probe.id, c.probe.containerId]] : []));
    expect(started).toEqual([['probe:a:side:liveness', 'i2'], ['probe:a:side:startup', 'i2']]);
  });

  it('releases the volumes of a pod that completed, once', () => {
    const done: PodStatus = { phase: 'Succeeded' };
    const first = decidePodStatus(state({ a: { lifecycle: 'active' } }), 'a', done);
    expect(first.commands).toEqual([{ kind: 'releaseVolumes', podUid: 'a', removeDirectory: false }]);
    expect(decidePodStatus(first.state, 'a', done).commands).toEqual([]);
  });

  it('keeps nothing of a pod it does not know', () => {
    expect(decidePodStatus(state(), 'x', { phase: 'Running' })).toEqual({ state: state(), commands: [] });
  });
});
