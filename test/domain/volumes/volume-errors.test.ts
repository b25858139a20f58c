import { describe, expect, it } from 'vitest';
import { KubeletError } from '../../../src/domain/errors.js';
import { aggregateErrors, objectNotFound } from '../../../src/domain/volumes/volume-errors.js';

describe('aggregateErrors', () => {
  const a = new KubeletError('KLT_ERR_POD_SPEC_INVALID', 'first');
  const b = new KubeletError('KLT_ERR_API_NOT_FOUND', 'second', { retryable: true });

  it('is undefined for no failures and the failure itself for one', () => {
    expect(aggregateErrors([])).toBeUndefined();
    expect(aggregateErrors([a])).toBe(a);
  });

  it('brackets several distinct messages, keeping the first code and any retryability', () => {
    const agg = aggregateErrors([a, b, a]);
    expect(agg?.message).toBe('[first, second]');
    expect(agg?.code).toBe('KLT_ERR_POD_SPEC_INVALID');
    expect(agg?.retryable).toBe(true);
  });

  it('prints one message alone when every failure says the same', () => {
    expect(aggregateErrors([a, new KubeletError('KLT_ERR_POD_SPEC_INVALID', 'first')])?.message).toBe('first');
  });
});

describe('objectNotFound', () => {
  it('words a missing object as the kubelet managers do, retryable', () => {
    const err = objectNotFound('configmap', 'app');
    expect(err.message).toBe('configmap "app" not found');
    expect(err.code).toBe('KLT_ERR_API_NOT_FOUND');
    expect(err.retryable).toBe(true);
  });
});
