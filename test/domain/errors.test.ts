import { describe, expect, it } from 'vitest';
import { KubeletError, serializeError } from '../../src/domain/errors.js';

describe('serializeError', () => {
  it('keeps the code and retryability of a KubeletError', () => {
    const err = new KubeletError('KLT_ERR_CRI_UNAVAILABLE', 'runtime is down', { retryable: true });
    expect(serializeError(err)).toEqual({ code: 'KLT_ERR_CRI_UNAVAILABLE', message: 'runtime is down', retryable: true });
  });

  it('maps a foreign error to KLT_ERR_INTERNAL with its message', () => {
    expect(serializeError(new TypeError('boom'))).toEqual({ code: 'KLT_ERR_INTERNAL', message: 'boom', retryable: false });
  });
});
