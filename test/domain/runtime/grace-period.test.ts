import { describe, expect, it } from 'vitest';
import { containerGracePeriodSeconds } from '../../../src/domain/runtime/grace-period.js';
import type { Container, Pod } from '../../../src/domain/pod/types.js';

const container: Container = { name: 'c', image: 'x:1', livenessProbe: { terminationGracePeriodSeconds: 5 } };
function pod(termination?: number, deletion?: number): Pod {
  return {
    metadata: { name: 'p', uid: 'u', ...(deletion !== undefined ? { deletionGracePeriodSeconds: deletion } : {}) },
    spec: { containers: [container], ...(termination !== undefined ? { terminationGracePeriodSeconds: termination } : {}) },
  };
}

describe('containerGracePeriodSeconds', () => {
  it.each<[string, Pod, Parameters<typeof containerGracePeriodSeconds>[2], number | undefined, number]>([
    ['the pod terminationGracePeriodSeconds', pod(30), undefined, undefined, 30],
    ['the deletion grace period over the spec', pod(30, 10), undefined, undefined, 10],
    ['the liveness probe own grace period', pod(30), 'LivenessProbe', undefined, 5],
    ['2 s when nothing is set', pod(), undefined, undefined, 2],
    ['at least 2 s', pod(0), undefined, undefined, 2],
    ['an override over everything', pod(30, 10), 'LivenessProbe', 7, 7],
    ['at least 2 s even with an override of 0', pod(30), undefined, 0, 2],
  ])('uses %s', (_, p, reason, override, expected) => {
    expect(containerGracePeriodSeconds(p, container, reason, override)).toBe(expected);
  });
});
