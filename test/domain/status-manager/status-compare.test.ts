import { describe, expect, it } from 'vitest';
import type { PodStatus } from '../../../src/domain/pod/types.js';
import { isSameStatus, isStatusReflected, keepTransitionTimes, normalizeStatus, statusMergePatch } from '../../../src/domain/status-manager/status-compare.js';

const cs = (name: string, ready: boolean) => ({ name, ready, restartCount: 0, image: 'i', imageID: '' });

describe('isSameStatus', () => {
  it('ignores lastProbeTime, key order and the order of container statuses', () => {
    const a: PodStatus = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastProbeTime: '2026-01-01T00:00:00Z' }], containerStatuses: [cs('b', true), cs('a', true)] };
    const b: PodStatus = { containerStatuses: [cs('a', true), cs('b', true)], conditions: [{ status: 'True', type: 'Ready', lastProbeTime: null }], phase: 'Running' };
    expect(isSameStatus(a, b)).toBe(true);
  });

  it.each([
    ['phase', { phase: 'Failed' } as PodStatus],
    ['readiness', { containerStatuses: [cs('a', false), cs('b', true)] } as PodStatus],
    ['a message', { message: 'x' } as PodStatus],
  ])('sees a change of %s', (_what, change) => {
    const base: PodStatus = { phase: 'Running', containerStatuses: [cs('a', true), cs('b', true)] };
    expect(isSameStatus(base, { ...base, ...change })).toBe(false);
  });

  it('compares as the statuses would print as JSON: a field set to undefined is none, null is a value, lists in their order', () => {
    const base: PodStatus = { phase: 'Running', podIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }], containerStatuses: [{ ...cs('a', true), state: { running: { startedAt: 't' } } }] };
    expect(isSameStatus(base, { ...base, message: undefined })).toBe(true);
    expect(isSameStatus(base, { ...base, message: null } as unknown as PodStatus)).toBe(false);
    expect(isSameStatus(base, { ...base, podIPs: [{ ip: 'fd00::1' }, { ip: '10.0.0.1' }] })).toBe(false);
    expect(isSameStatus(base, { ...base, podIPs: [{ ip: '10.0.0.1' }] })).toBe(false);
    expect(isSameStatus(base, { ...base, containerStatuses: [{ ...cs('a', true), state: { running: { startedAt: 'u' } } }] })).toBe(false);
    expect(isSameStatus(base, { ...base, containerStatuses: [{ ...cs('a', true), state: { running: { startedAt: 't' } }, started: undefined }] })).toBe(true);
    expect(isSameStatus(base, structuredClone(base))).toBe(true);
  });

  it('treats a missing status as different from any status', () => {
    expect(isSameStatus(null, { phase: 'Pending' })).toBe(false);
    expect(isSameStatus(null, null)).toBe(true);
  });

  it('does not change its input', () => {
    const a: PodStatus = { containerStatuses: [cs('b', true), cs('a', true)] };
    normalizeStatus(a);
    expect(a.containerStatuses!.map((c) => c.name)).toEqual(['b', 'a']);
  });
});

describe('keepTransitionTimes', () => {
  it('keeps the old time when the condition status is the same, takes the new one when it flips', () => {
    const before: PodStatus = { conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: 't0' }, { type: 'Initialized', status: 'True', lastTransitionTime: 't0' }] };
    const next: PodStatus = { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: 't1' }, { type: 'Initialized', status: 'True', lastTransitionTime: 't1' }] };
    const kept = keepTransitionTimes(before, next);
    expect(kept.conditions).toEqual([
      { type: 'Ready', status: 'True', lastTransitionTime: 't1' },
      { type: 'Initialized', status: 'True', lastTransitionTime: 't0' },
    ]);
  });
});

describe('statusMergePatch', () => {
  it('carries the uid precondition and nulls fields the new status dropped', () => {
    expect(statusMergePatch('u1', { phase: 'Running', message: 'old', podIP: '10.0.0.1' }, { phase: 'Failed', podIP: '10.0.0.1' })).toEqual({
      metadata: { uid: 'u1' },
      status: { phase: 'Failed', podIP: '10.0.0.1', message: null },
    });
  });

  it('deletes by name a condition the kubelet no longer reports, since the API server merges conditions by type', () => {
    const before = { phase: 'Running' as const, conditions: [{ type: 'Ready', status: 'True' as const }, { type: 'PodResizePending', status: 'True' as const, reason: 'Infeasible' }] };
    const after = { phase: 'Running' as const, conditions: [{ type: 'Ready', status: 'True' as const }] };
    expect(statusMergePatch('u1', before, after).status).toEqual({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }, { type: 'PodResizePending', $patch: 'delete' }] });
    expect(statusMergePatch('u1', after, after).status).toEqual(after);
  });
});

describe('isStatusReflected', () => {
  const ours: PodStatus = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };

  it('ignores fields and condition types we do not set', () => {
    const api: PodStatus = { phase: 'Running', qosClass: 'BestEffort', conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: 'True' }] };
    expect(isStatusReflected(ours, api)).toBe(true);
  });

  it('sees a field of ours that the API server shows otherwise', () => {
    expect(isStatusReflected(ours, { phase: 'Pending', conditions: [{ type: 'Ready', status: 'True' }] })).toBe(false);
    expect(isStatusReflected(ours, { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] })).toBe(false);
    expect(isStatusReflected(ours, null)).toBe(false);
  });

  it('answers again for the same two status objects without comparing them, and anew for another', () => {
    const status: PodStatus = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
    const api: PodStatus = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
    expect(isStatusReflected(status, api)).toBe(true);
    const moved: PodStatus = { phase: 'Failed', conditions: [{ type: 'Ready', status: 'True' }] };
    expect(isStatusReflected(status, moved)).toBe(false);
    expect(isStatusReflected(status, api)).toBe(true);
    // Statuses are replaced, never changed in place: one changed in place is not looked at again.
    api.phase = 'Pending';
    expect(isStatusReflected(status, api)).toBe(true);
    expect(isStatusReflected(status, { ...api })).toBe(false);
  });
});

describe('keepTransitionTimes and startTime', () => {
  it('keeps the first startTime', () => {
    expect(keepTransitionTimes({ startTime: 't0' }, { startTime: 't1', phase: 'Running' })).toEqual({ startTime: 't0', phase: 'Running' });
    expect(keepTransitionTimes({}, { startTime: 't1' })).toEqual({ startTime: 't1' });
  });
});
