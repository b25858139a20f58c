import { describe, expect, it } from 'vitest';
import type { PodCondition, PodStatus } from '../../../src/domain/pod/types.js';
import { mergePodStatus } from '../../../src/domain/status-manager/merge-status.js';

const c = (type: string, status: PodCondition['status'], reason?: string): PodCondition => ({ type, status, ...(reason ? { reason } : {}) });
const types = (s: PodStatus) => s.conditions?.map((x) => `${x.type}=${x.status}`);

describe('mergePodStatus', () => {
  it('takes the kubelet\'s own conditions from its status and every other one from the API server\'s', () => {
    const api: PodStatus = { phase: 'Running', conditions: [c('example.com/gate', 'True'), c('Ready', 'False'), c('PodScheduled', 'True')] };
    const ours: PodStatus = { phase: 'Running', conditions: [c('example.com/gate', 'False'), c('example.com/stale', 'True'), c('Ready', 'True'), c('PodScheduled', 'True')] };
    const merged = mergePodStatus(api, ours);
    expect(types(merged)).toEqual(['example.com/gate=True', 'Ready=True', 'PodScheduled=True']);
    expect(merged.phase).toBe('Running');
  });

  it('lets the kubelet\'s DisruptionTarget replace the API server\'s', () => {
    const api: PodStatus = { conditions: [c('DisruptionTarget', 'False', 'Other')] };
    const merged = mergePodStatus(api, { conditions: [c('Ready', 'False'), c('DisruptionTarget', 'True', 'TerminationByKubelet')] });
    expect(merged.conditions).toEqual([c('Ready', 'False'), c('DisruptionTarget', 'True', 'TerminationByKubelet')]);
  });

  it('leaves a status alone without an API view, or without conditions of its own', () => {
    const ours: PodStatus = { phase: 'Failed', reason: 'NodeAffinity' };
    expect(mergePodStatus(null, { conditions: [c('x', 'True')] })).toEqual({ conditions: [c('x', 'True')] });
    expect(mergePodStatus({ conditions: [c('example.com/gate', 'True')] }, ours)).toBe(ours);
  });

  it('keeps the claim statuses others set, with or without conditions of its own, so the patch never removes them', () => {
    const claims = [{ name: 'gpu', resourceClaimName: 'p-gpu-x7' }];
    const api: PodStatus = { phase: 'Pending', resourceClaimStatuses: claims, extendedResourceClaimStatus: { resourceClaimName: 'p-ext' } };
    expect(mergePodStatus(api, { phase: 'Running', conditions: [c('Ready', 'False')] })).toEqual({
      phase: 'Running', conditions: [c('Ready', 'False')], resourceClaimStatuses: claims, extendedResourceClaimStatus: { resourceClaimName: 'p-ext' },
    });
    expect(mergePodStatus(api, { phase: 'Failed', reason: 'PodFeatureNotSupported', resourceClaimStatuses: [] })).toEqual({
      phase: 'Failed', reason: 'PodFeatureNotSupported', resourceClaimStatuses: claims, extendedResourceClaimStatus: { resourceClaimName: 'p-ext' },
    });
  });

  it('hands back the same merge for the same two statuses, and a new one when the API server\'s changes', () => {
    const ours: PodStatus = { phase: 'Running', conditions: [c('Ready', 'True')] };
    const api: PodStatus = { conditions: [c('example.com/gate', 'True')] };
    const first = mergePodStatus(api, ours);
    expect(mergePodStatus(api, ours)).toBe(first);
    const changed: PodStatus = { conditions: [c('example.com/gate', 'False')] };
    const second = mergePodStatus(changed, ours);
    expect(second).not.toBe(first);
    expect(types(second)).toEqual(['example.com/gate=False', 'Ready=True']);
    expect(types(mergePodStatus(api, { ...ours }))).toEqual(['example.com/gate=True', 'Ready=True']);
  });
});
