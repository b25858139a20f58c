import { describe, expect, it } from 'vitest';
import { evictionCandidates } from '../../../src/domain/eviction/candidates.js';
import type { Pod } from '../../../src/domain/pod/types.js';

const t = '2026-11-24T09:00:00Z';

describe('evictionCandidates', () => {
  it('joins pods to their stats by UID and sums container usage', () => {
    const pod: Pod = {
      metadata: { name: 'p', namespace: 'ns', uid: 'u', annotations: { 'kubernetes.io/config.source': 'file' } },
      spec: { terminationGracePeriodSeconds: 5, containers: [{ name: 'c', image: 'i', resources: { requests: { memory: '1Ki' } } }] },
    };
    const [c] = evictionCandidates([pod], [{
      podRef: { name: 'p', namespace: 'ns', uid: 'u' }, startTime: t,
      memory: { time: t, workingSetBytes: 4096n },
      containers: [{ name: 'c', startTime: t, memory: { time: t, workingSetBytes: 4096n }, rootfs: { time: t, usedBytes: 10n, inodesUsed: 2n }, logs: { time: t, usedBytes: 5n, inodesUsed: 1n } }],
    }]);
    expect(c).toEqual({
      uid: 'u', namespace: 'ns', name: 'p', priority: 0, critical: true, terminationGracePeriodSeconds: 5,
      requests: { memory: 1024, 'ephemeral-storage': 0 },
      containerRequests: [{ name: 'c', memory: '1Ki' }],
      usage: { memoryBytes: 4096, diskBytes: 15, inodes: 3, containers: [{ name: 'c', workingSetBytes: 4096, diskBytes: 15 }] },
    });
  });

  it('leaves usage out for a pod the summary does not have', () => {
    const pod: Pod = { metadata: { name: 'p', uid: 'x' }, spec: { containers: [] } };
    expect(evictionCandidates([pod], [])[0]?.usage).toBeUndefined();
  });
});
