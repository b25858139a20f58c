import { describe, expect, it } from 'vitest';
import { podList, runningPodList } from '../../../src/domain/kubelet-server/pod-list.js';
import type { Pod } from '../../../src/domain/pod/types.js';

const pod = (name: string, states: Array<'running' | 'waiting'>): Pod => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, labels: { a: 'b' } },
  spec: { containers: states.map((_, i) => ({ name: `c${i}`, image: `img${i}`, command: ['x'] })), restartPolicy: 'Always' },
  status: {
    phase: 'Running',
    containerStatuses: states.map((s, i) => ({
      name: `c${i}`, image: `img${i}`, imageID: '', ready: s === 'running', restartCount: 0,
      state: s === 'running' ? { running: { startedAt: '2024-01-01T00:00:00Z' } } : { waiting: { reason: 'ContainerCreating' } },
    })),
  },
});

describe('podList', () => {
  it('is a v1 PodList whose items carry no kind/apiVersion', () => {
    const list = podList([pod('a', ['running'])]);
    expect(list).toMatchObject({ kind: 'PodList', apiVersion: 'v1', metadata: {} });
    expect(list.items[0]).not.toHaveProperty('kind');
    expect(list.items[0]!.spec.restartPolicy).toBe('Always');
    expect(list.items[0]!.status?.phase).toBe('Running');
  });
});

describe('runningPodList', () => {
  it('keeps pods with a running container, with only name, namespace, uid and running containers', () => {
    const list = runningPodList([pod('a', ['running', 'waiting']), pod('b', ['waiting'])]);
    expect(list.items).toEqual([{ metadata: { name: 'a', namespace: 'ns', uid: 'uid-a' }, spec: { containers: [{ name: 'c0', image: 'img0' }] } }]);
  });
});
