import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock, toPromise } from 'xstate';
import { nodeLeaseActors } from '../../../src/actors/node/node-lease-actors.js';
import type { LeaseObject } from '../../../src/ports/apiserver.js';
import type { RenewLeaseInput } from '../../../src/machines/node-lease.machine.js';
import { FakeNodeApi } from './fake-node-api.js';

function renew(api: FakeNodeApi, input: Partial<RenewLeaseInput> = {}) {
  const clock = new SimulatedClock();
  clock.set(12_345);
  const { renewLease } = nodeLeaseActors({ heartbeat: api, clock, logger: pino({ level: 'silent' }) });
  const actor = createActor(renewLease, { input: { nodeName: 'n1', leaseDurationSeconds: 40, nodeUid: 'u1', lease: null, attempt: 0, ...input } });
  actor.start();
  return toPromise(actor);
}

describe('renewLease', () => {
  it('creates the lease, owned by the Node, when there is none', async () => {
    const api = new FakeNodeApi();
    const r = await renew(api);
    expect(r.ok).toBe(true);
    expect(api.calls).toEqual(['getLease', 'createLease']);
    const stored = api.leases.get('kube-node-lease/n1')!;
    expect(stored.spec).toEqual({ holderIdentity: 'n1', leaseDurationSeconds: 40, renewTime: '1970-01-01T00:00:12.345000Z' });
    expect(stored.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'u1' }]);
  });

  it('updates with the copy it holds, without a GET', async () => {
    const api = new FakeNodeApi();
    const first = await renew(api);
    api.calls.length = 0;
    const second = await renew(api, { lease: (first as { lease: LeaseObject }).lease });
    expect(second.ok).toBe(true);
    expect(api.calls).toEqual(['updateLease']);
  });

  it('re-gets and updates once on 409', async () => {
    const api = new FakeNodeApi();
    const first = (await renew(api)) as { lease: LeaseObject };
    await renew(api, { lease: first.lease }); // the stored resourceVersion moves on: our copy is stale
    api.calls.length = 0;
    const r = await renew(api, { lease: first.lease });
    expect(r.ok).toBe(true);
    expect(api.calls).toEqual(['updateLease', 'getLease', 'updateLease']);
  });

  it('answers a failure as data and re-opens connections on a retry', async () => {
    const api = new FakeNodeApi();
    api.failNext = ['KLT_ERR_API_UNAVAILABLE'];
    const r = await renew(api, { attempt: 2 });
    expect(r).toMatchObject({ ok: false, error: { code: 'KLT_ERR_API_UNAVAILABLE', retryable: true }, observedAtMs: 12_345 });
    expect(api.reopens).toBe(1);
  });
});
