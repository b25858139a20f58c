import { describe, expect, it } from 'vitest';
import { containersFamily } from '../../../../src/domain/explain/families/containers.js';
import { Records, UID } from '../records.js';

describe('containersFamily', () => {
  it('tells each container started, and a start that failed after the image was there, leaving image and back-off failures to their families', () => {
    const r = new Records();
    r.syncDone(100, { ok: true, steps: [
      { step: 'startInitContainer', target: 'init', ok: true, id: '0123456789abcdef0123', durationMs: 1 },
      { step: 'startContainer', target: 'main', ok: true, id: 'fedcba9876543210fedc', durationMs: 1 },
    ] });
    r.syncDone(200, { ok: false, steps: [
      { step: 'startContainer', target: 'main', ok: false, reason: 'CreateContainerConfigError', error: { code: 'KLT_ERR_CONTAINER_CONFIG', message: 'configmap "cfg" not found' }, durationMs: 1 },
      { step: 'startContainer', target: 'side', ok: false, reason: 'ErrImagePull', error: { message: 'not found' }, durationMs: 1 },
      { step: 'startContainer', target: 'other', ok: false, reason: 'CrashLoopBackOff', error: { message: 'back-off 10s' }, durationMs: 1 },
    ] });
    expect(containersFamily(r.history()).map((l) => [l.t, l.text, l.cites])).toEqual([
      [100, 'init container init started (0123456789ab)', [1]],
      [100, 'container main started (fedcba987654)', [1]],
      [200, 'container main failed to start: CreateContainerConfigError: configmap "cfg" not found', [2]],
    ]);
  });

  it('tells each container resized in place and each resize that failed, leaving the pod cgroup\'s successes out', () => {
    const r = new Records();
    r.syncDone(100, { ok: true, resize: { status: 'applied' }, steps: [
      { step: 'resizePodInPlace', target: 'default/web', ok: true, durationMs: 0 },
      { step: 'updatePodCgroup', target: 'default/web', ok: true, resource: 'cpu', durationMs: 0 },
      { step: 'updateContainerResources', target: 'main', ok: true, id: 'c1', resource: 'cpu', durationMs: 0 },
    ] });
    r.syncDone(200, { ok: false, steps: [
      { step: 'resizePodInPlace', target: 'default/web', ok: false, reason: 'ErrResizePodInPlace', error: { message: 'cannot decrease memory limits: missing pod memory usage' }, durationMs: 0 },
    ] });
    r.syncDone(300, { ok: false, steps: [
      { step: 'updateContainerResources', target: 'main', ok: false, reason: 'ErrResizePodInPlace', resource: 'memory', error: { message: 'injected' }, durationMs: 0 },
    ] });
    expect(containersFamily(r.history()).map((l) => [l.t, l.text])).toEqual([
      [100, 'container main resized in place (cpu)'],
      [200, 'resize not applied: cannot decrease memory limits: missing pod memory usage'],
      [300, 'container main resize failed (memory): injected'],
    ]);
  });

  it('tells a sync that failed as a whole', () => {
    const r = new Records();
    r.add(10, { actor: `pod:${UID}`, kind: 'input', type: 'event', name: 'xstate.error.actor.syncPod', payload: { error: { code: 'KLT_ERR_CRI_UNAVAILABLE', message: 'connect ENOENT /run/containerd/containerd.sock' } } });
    expect(containersFamily(r.history()).map((l) => [l.text, l.cites])).toEqual([['sync failed: connect ENOENT /run/containerd/containerd.sock', [1]]]);
  });
});
