import { describe, expect, it } from 'vitest';
import { stalePodClaims, type ClaimInfo } from '../../../src/domain/dra/claim-info.js';

const info = (claimName: string, podUids: string[], namespace = 'ml'): ClaimInfo => ({ claimUid: `uid-${claimName}`, claimName, namespace, podUids, drivers: {}, prepared: true });

describe('stalePodClaims', () => {
  it('names each pod the kept claims list that may no longer run, with its claims, in name order', () => {
    const kept = [info('zeta', ['pod-b', 'pod-a']), info('alpha', ['pod-a']), info('mine', ['pod-c'], 'other')];
    expect(stalePodClaims(kept, new Set(['pod-c']))).toEqual([
      { podUid: 'pod-a', namespace: 'ml', claimNames: ['alpha', 'zeta'] },
      { podUid: 'pod-b', namespace: 'ml', claimNames: ['zeta'] },
    ]);
  });

  it('finds nothing while every pod the claims name may still run', () => {
    expect(stalePodClaims([info('zeta', ['pod-a', 'pod-b'])], new Set(['pod-a', 'pod-b']))).toEqual([]);
  });
});
