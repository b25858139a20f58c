import { describe, expect, it } from 'vitest';
import { containerIdentities, containerKey, runtimeContainerId } from '../../../src/domain/kubelet-server/container-identities.js';
import type { ContainerStatus, Pod } from '../../../src/domain/pod/types.js';

const status = (name: string, running: boolean, containerID?: string): ContainerStatus => ({
  name, ready: running, restartCount: 0, image: `img/${name}:1`, imageID: '', ...(containerID ? { containerID } : {}),
  state: running ? { running: { startedAt: '2024-01-01T00:00:00Z' } } : { terminated: { exitCode: 0 } },
});

describe('containerIdentities', () => {
  it('gives each running container\'s runtime id and image, init containers too, by namespace/pod/container', () => {
    const pod = {
      metadata: { name: 'web', uid: 'u' },
      spec: { containers: [] },
      status: { initContainerStatuses: [status('init', true, 'containerd://i1')], containerStatuses: [status('main', true, 'containerd://m1'), status('done', false, 'containerd://d1'), status('new', true)] },
    } as unknown as Pod;
    const ids = containerIdentities([pod]);
    expect([...ids]).toEqual([
      [containerKey('default', 'web', 'init'), { runtimeId: 'i1', image: 'img/init:1' }],
      [containerKey('default', 'web', 'main'), { runtimeId: 'm1', image: 'img/main:1' }],
    ]);
  });

  it('strips the runtime scheme from a containerID', () => {
    expect([runtimeContainerId('containerd://abc'), runtimeContainerId('embedded://x-1'), runtimeContainerId(undefined)]).toEqual(['abc', 'x-1', '']);
  });
});
