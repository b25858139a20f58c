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

  it('tells a sync that failed as a whole', () => {
    const r = new Records();
    r.add(10, { actor: `pod:${UID}`, kind: 'input', type: 'event', name: 'xstate.error.actor.syncPod', payload: { error: { code: 'KLT_ERR_CRI_UNAVAILABLE', message: 'connect ENOENT /run/containerd/containerd.sock' } } });
    expect(containersFamily(r.history()).map((l) => [l.text, l.cites])).toEqual([['sync failed: connect ENOENT /run/containerd/containerd.sock', [1]]]);
  });
});
