import { describe, expect, it } from 'vitest';
import { sandboxFamily } from '../../../../src/domain/explain/families/sandbox.js';
import { Records } from '../records.js';

describe('sandboxFamily', () => {
  it('tells a sandbox created, created again, and a creation that failed', () => {
    const r = new Records();
    r.syncDone(10, { ok: true, actions: { attempt: 0 }, steps: [{ step: 'killPodSandbox', target: 'default/web', ok: true }, { step: 'createPodSandbox', target: 'default/web', ok: true, id: 'aaaabbbbccccdddd' }] });
    r.syncDone(20, { ok: false, actions: { attempt: 1 }, steps: [{ step: 'createPodSandbox', target: 'default/web', ok: false, error: { message: 'failed to setup network for sandbox: plugin not found' } }] });
    r.syncDone(30, { ok: true, actions: { attempt: 1 }, steps: [{ step: 'createPodSandbox', target: 'default/web', ok: true, id: '1111222233334444' }] });
    expect(sandboxFamily(r.history()).map((l) => l.text)).toEqual([
      'sandbox created (aaaabbbbcccc)',
      'FailedCreatePodSandBox: failed to setup network for sandbox: plugin not found',
      'sandbox created again (111122223333), attempt 1: the previous one had stopped or changed',
    ]);
  });
});
