import { describe, expect, it } from 'vitest';
import { terminatedPodStatus } from '../../../src/domain/pod/terminated-status.js';
import type { Container, ContainerStatus, Pod, PodStatus } from '../../../src/domain/pod/types.js';

const main: Container = { name: 'main', image: 'kubelet-ts.invalid/none:1' };
const side: Container = { name: 'side', image: 'busybox:1.36' };
const setup: Container = { name: 'setup', image: 'busybox:1.36' };
const setup2: Container = { name: 'setup2', image: 'busybox:1.36' };

const pod = (spec: Partial<Pod['spec']> = {}, annotations?: Record<string, string>): Pod =>
  ({ metadata: { name: 'p', namespace: 'ns', uid: 'u1', ...(annotations ? { annotations } : {}) }, spec: { containers: [main], ...spec } });

const waiting = (name: string, reason = 'ImagePullBackOff', over: Partial<ContainerStatus> = {}): ContainerStatus =>
  ({ name, state: { waiting: { reason } }, lastState: {}, ready: false, restartCount: 0, image: 'x', imageID: '', ...over });
const exitedWith = (name: string, exitCode: number): ContainerStatus =>
  ({ name, state: { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error' } }, lastState: {}, ready: false, restartCount: 0, image: 'x', imageID: '' });
const unknown = { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated' } };

describe('terminatedPodStatus', () => {
  it('turns a pod whose image never pulled into Failed, its waiting container terminated with ContainerStatusUnknown', () => {
    const status: PodStatus = { phase: 'Pending', containerStatuses: [waiting('main')] };
    const final = terminatedPodStatus(pod(), status);
    expect(final.phase).toBe('Failed');
    expect(final.containerStatuses).toEqual([{ ...waiting('main'), state: unknown }]);
    expect(status.phase).toBe('Pending');
  });

  it('keeps terminated containers and a Succeeded phase as they are', () => {
    const status: PodStatus = { phase: 'Succeeded', containerStatuses: [exitedWith('main', 0)] };
    expect(terminatedPodStatus(pod(), status)).toEqual(status);
  });

  it.each([['Running'], ['Unknown'], ['Failed']] as const)('makes phase %s Failed', (phase) => {
    expect(terminatedPodStatus(pod(), { phase, containerStatuses: [exitedWith('main', 1)] }).phase).toBe('Failed');
  });

  it('leaves a static pod\'s phase alone', () => {
    const status: PodStatus = { phase: 'Pending', containerStatuses: [waiting('main')] };
    expect(terminatedPodStatus(pod({}, { 'kubernetes.io/config.source': 'file' }), status).phase).toBe('Pending');
  });

  it('leaves waiting regular containers of a pod that never initialized, and the init containers that never started but the first', () => {
    const spec = { initContainers: [setup, setup2], containers: [main, side] };
    const status: PodStatus = {
      phase: 'Pending',
      initContainerStatuses: [waiting('setup', 'ErrImagePull'), waiting('setup2', 'PodInitializing')],
      containerStatuses: [waiting('main', 'PodInitializing'), waiting('side', 'PodInitializing')],
    };
    const final = terminatedPodStatus(pod(spec), status);
    expect(final.phase).toBe('Failed');
    expect(final.initContainerStatuses?.map((s) => s.state)).toEqual([unknown, { waiting: { reason: 'PodInitializing' } }]);
    expect(final.containerStatuses).toEqual(status.containerStatuses);
  });

  it('terminates every container once the last init container exited 0', () => {
    const spec = { initContainers: [setup], containers: [main] };
    const final = terminatedPodStatus(pod(spec), { phase: 'Pending', initContainerStatuses: [exitedWith('setup', 0)], containerStatuses: [waiting('main')] });
    expect(final.initContainerStatuses?.[0]?.state).toEqual(exitedWith('setup', 0).state);
    expect(final.containerStatuses?.[0]?.state).toEqual(unknown);
  });
});
