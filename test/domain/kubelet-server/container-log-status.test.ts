import { describe, expect, it } from 'vitest';
import { containerLogInstance } from '../../../src/domain/kubelet-server/container-log-status.js';
import type { ContainerState, ContainerStatus, PodStatus } from '../../../src/domain/pod/types.js';

const cs = (state: ContainerState, lastState: ContainerState = {}, containerID?: string): ContainerStatus => ({
  name: 'app', image: 'busybox', imageID: '', ready: false, restartCount: 2, state, lastState, ...(containerID ? { containerID } : {}),
});
const pod = (c: ContainerStatus, where: 'containerStatuses' | 'initContainerStatuses' = 'containerStatuses'): PodStatus => ({ [where]: [c] });
const done = (containerID?: string) => ({ terminated: { exitCode: 1, ...(containerID ? { containerID } : {}) } });
const pick = (status: PodStatus | undefined, previous = false) => containerLogInstance(status, 'web', 'app', previous);

describe('containerLogInstance: the instance /containerLogs reads, as Go\'s validateContainerLogStatus', () => {
  it('reads the running instance, and the last terminated one when previous', () => {
    const status = pod(cs({ running: {} }, done('containerd://old'), 'containerd://now'));
    expect(pick(status)).toEqual({ ok: true, containerId: 'containerd://now' });
    expect(pick(status, true)).toEqual({ ok: true, containerId: 'containerd://old' });
  });

  it('reads the instance that last terminated while the container waits to restart (a back-off), for both the current and previous logs', () => {
    const status = pod(cs({ waiting: { reason: 'CrashLoopBackOff' } }, done('containerd://died')));
    expect(pick(status)).toEqual({ ok: true, containerId: 'containerd://died' });
    expect(pick(status, true)).toEqual({ ok: true, containerId: 'containerd://died' });
  });

  it('reads a terminated instance, or the one before when the terminated one has no ID', () => {
    expect(pick(pod(cs(done('containerd://end'))))).toEqual({ ok: true, containerId: 'containerd://end' });
    expect(pick(pod(cs(done(), done('containerd://before'))))).toEqual({ ok: true, containerId: 'containerd://before' });
    expect(pick(pod(cs(done())))).toEqual({ ok: false, message: 'container "app" in pod "web" is terminated' });
    expect(pick(pod(cs({ waiting: {} }, done())))).toEqual({ ok: false, message: 'container "app" in pod "web" is terminated' });
  });

  it('finds init containers too', () => {
    expect(pick(pod(cs(done('containerd://init')), 'initContainerStatuses'))).toEqual({ ok: true, containerId: 'containerd://init' });
  });

  it.each([
    { reason: 'ContainerCreating', message: 'container "app" in pod "web" is waiting to start: ContainerCreating' },
    { reason: 'ErrImagePull', message: 'container "app" in pod "web" is waiting to start: image can\'t be pulled' },
    { reason: 'ImagePullBackOff', message: 'container "app" in pod "web" is waiting to start: trying and failing to pull image' },
  ])('says a container that never started is waiting to start: $reason', ({ reason, message }) => {
    expect(pick(pod(cs({ waiting: { reason } })))).toEqual({ ok: false, message });
  });

  it('names a container with no status, no state, or no previous instance as Go does', () => {
    expect(pick(undefined)).toEqual({ ok: false, message: 'container "app" in pod "web" is not available' });
    expect(pick({ containerStatuses: [] })).toEqual({ ok: false, message: 'container "app" in pod "web" is not available' });
    expect(pick(pod(cs({})))).toEqual({ ok: false, message: 'container "app" in pod "web" is waiting to start - no logs yet' });
    expect(pick(pod(cs({ running: {} }, {}, 'containerd://now')), true)).toEqual({ ok: false, message: 'previous terminated container "app" in pod "web" not found' });
  });
});
