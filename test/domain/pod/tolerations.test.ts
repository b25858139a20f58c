import { describe, expect, it } from 'vitest';
import type { Taint } from '../../../src/domain/api/common-types.js';
import { findUntoleratedTaint, toleratesTaint } from '../../../src/domain/pod/tolerations.js';
import type { Toleration } from '../../../src/domain/pod/types.js';

const taint: Taint = { key: 'dedicated', value: 'db', effect: 'NoExecute' };

describe('toleratesTaint', () => {
  it.each<[string, Toleration, boolean]>([
    ['Equal with the key, value and effect', { key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoExecute' }, true],
    ['an empty operator as Equal', { key: 'dedicated', value: 'db' }, true],
    ['Equal with another value', { key: 'dedicated', operator: 'Equal', value: 'web' }, false],
    ['Exists with the key', { key: 'dedicated', operator: 'Exists' }, true],
    ['Exists with no key (every taint)', { operator: 'Exists' }, true],
    ['Exists with another effect', { operator: 'Exists', effect: 'NoSchedule' }, false],
    ['another key', { key: 'other', operator: 'Exists' }, false],
    ['an operator it does not know', { key: 'dedicated', operator: 'Gt' as Toleration['operator'], value: 'db' }, false],
  ])('%s: %s', (_name, toleration, expected) => {
    expect(toleratesTaint(toleration, taint)).toBe(expected);
  });

  it('reads an absent taint value as empty', () => {
    expect(toleratesTaint({ key: 'k', operator: 'Equal', value: '' }, { key: 'k', effect: 'NoExecute' })).toBe(true);
  });
});

describe('findUntoleratedTaint', () => {
  it('finds the first considered taint no toleration tolerates', () => {
    const taints: Taint[] = [{ key: 'a', effect: 'NoSchedule' }, taint, { key: 'b', effect: 'NoExecute' }];
    const noExecute = (t: Taint) => t.effect === 'NoExecute';
    expect(findUntoleratedTaint(taints, [], noExecute)).toEqual(taint);
    expect(findUntoleratedTaint(taints, [{ key: 'dedicated', operator: 'Exists' }], noExecute)).toEqual({ key: 'b', effect: 'NoExecute' });
    expect(findUntoleratedTaint(taints, [{ operator: 'Exists', effect: 'NoExecute' }], noExecute)).toBeUndefined();
  });
});
