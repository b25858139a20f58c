import { describe, expect, it } from 'vitest';
import type { NodeObject } from '../../../src/domain/node-status/api-objects.js';
import { isNewerLiveNode, liveNodeOf, sameLiveNode, type LiveNode } from '../../../src/domain/node-status/live-node.js';

const apiNode = (extra: { labels?: Record<string, string>; spec?: NodeObject['spec']; rv?: string } = {}): NodeObject => ({
  metadata: { name: 'n1', resourceVersion: extra.rv ?? '7', labels: extra.labels ?? { 'kubernetes.io/hostname': 'n1' } },
  spec: extra.spec ?? {},
  status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: 't', lastTransitionTime: 't', reason: '', message: '' }] },
});
const live = (over: Partial<LiveNode> = {}): LiveNode => ({ resourceVersion: '1', labels: { a: '1', b: '2' }, taints: [], podCIDR: '', ...over });

describe('liveNodeOf', () => {
  it('keeps the labels, taints and resourceVersion, and nothing of the status', () => {
    const taints = [{ key: 'k', value: 'v', effect: 'NoSchedule' }];
    expect(liveNodeOf(apiNode({ labels: { zone: 'a' }, spec: { taints } }))).toEqual({ resourceVersion: '7', labels: { zone: 'a' }, taints, podCIDR: '' });
  });

  it('joins spec.podCIDRs with a comma as Go does, and falls back to spec.podCIDR', () => {
    expect(liveNodeOf(apiNode({ spec: { podCIDR: '10.1.0.0/24', podCIDRs: ['10.1.0.0/24', 'fd00::/64'] } })).podCIDR).toBe('10.1.0.0/24,fd00::/64');
    expect(liveNodeOf(apiNode({ spec: { podCIDR: '10.1.0.0/24' } })).podCIDR).toBe('10.1.0.0/24');
  });
});

describe('sameLiveNode', () => {
  it('ignores the resourceVersion and the order of the labels', () => {
    expect(sameLiveNode(live(), live({ resourceVersion: '9', labels: { b: '2', a: '1' } }))).toBe(true);
  });

  it.each([
    ['a label added', live({ labels: { a: '1', b: '2', zone: 'a' } })],
    ['a label changed', live({ labels: { a: '1', b: '3' } })],
    ['a taint added', live({ taints: [{ key: 'k', effect: 'NoExecute' }] })],
    ['the pod CIDR set', live({ podCIDR: '10.1.0.0/24' })],
  ])('sees %s', (_what, other) => {
    expect(sameLiveNode(live(), other)).toBe(false);
  });

  it('sees a taint whose timeAdded changed', () => {
    expect(sameLiveNode(live({ taints: [{ key: 'k', effect: 'NoExecute', timeAdded: 't1' }] }), live({ taints: [{ key: 'k', effect: 'NoExecute', timeAdded: 't2' }] }))).toBe(false);
  });
});

describe('isNewerLiveNode', () => {
  it('compares resourceVersions as integers, and takes anything over nothing', () => {
    expect(isNewerLiveNode(live({ resourceVersion: '10' }), live({ resourceVersion: '9' }))).toBe(true);
    expect(isNewerLiveNode(live({ resourceVersion: '9' }), live({ resourceVersion: '10' }))).toBe(false);
    expect(isNewerLiveNode(live({ resourceVersion: '10' }), live({ resourceVersion: '10' }))).toBe(false);
    expect(isNewerLiveNode(live(), null)).toBe(true);
  });

  it('takes the candidate when either version is not an integer (Go: the informer\'s on a parse error)', () => {
    expect(isNewerLiveNode(live({ resourceVersion: 'x' }), live({ resourceVersion: '10' }))).toBe(true);
    expect(isNewerLiveNode(live({ resourceVersion: '1' }), live({ resourceVersion: '' }))).toBe(true);
  });
});
