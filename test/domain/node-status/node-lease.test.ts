import { describe, expect, it } from 'vitest';
import { newLease, renewedLease, renewIntervalMs } from '../../../src/domain/node-status/node-lease.js';

describe('node lease', () => {
  it('is kube-node-lease/<node>, held by the node, with microsecond renewTime', () => {
    const lease = newLease({ nodeName: 'n1', leaseDurationSeconds: 40, nodeUid: null, nowMs: 1_500 });
    expect(lease.metadata).toEqual({ name: 'n1', namespace: 'kube-node-lease' });
    expect(lease.spec).toEqual({ holderIdentity: 'n1', leaseDurationSeconds: 40, renewTime: '1970-01-01T00:00:01.500000Z' });
  });

  it('adds the Node as owner once its uid is known, and only once', () => {
    const withoutOwner = newLease({ nodeName: 'n1', leaseDurationSeconds: 40, nodeUid: null, nowMs: 0 });
    const owned = renewedLease(withoutOwner, { nodeName: 'n1', leaseDurationSeconds: 40, nodeUid: 'u1', nowMs: 10_000 });
    expect(owned.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'u1' }]);
    const again = renewedLease(owned, { nodeName: 'n1', leaseDurationSeconds: 40, nodeUid: 'u1', nowMs: 20_000 });
    expect(again.metadata.ownerReferences).toHaveLength(1);
    expect(withoutOwner.metadata.ownerReferences).toBeUndefined();
  });

  it('renews every quarter of the duration', () => {
    expect(renewIntervalMs(40)).toBe(10_000);
  });
});
