import { describe, expect, it } from 'vitest';
import { deserializeError, KUBELET_ERROR_CODES, KubeletError, serializeError } from '../../src/domain/errors.js';
import { toJournalPayload } from '../../src/domain/journal/payload.js';

describe('serializeError', () => {
  it('keeps the code and retryability of a KubeletError', () => {
    const err = new KubeletError('KLT_ERR_CRI_UNAVAILABLE', 'runtime is down', { retryable: true });
    expect(serializeError(err)).toEqual({ code: 'KLT_ERR_CRI_UNAVAILABLE', message: 'runtime is down', retryable: true });
  });

  it('maps a foreign error to KLT_ERR_INTERNAL with its message', () => {
    expect(serializeError(new TypeError('boom'))).toEqual({ code: 'KLT_ERR_INTERNAL', message: 'boom', retryable: false });
  });

  it('maps an errno error to KLT_ERR_INTERNAL: its code is not one of ours', () => {
    const err = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    expect(serializeError(err)).toEqual({ code: 'KLT_ERR_INTERNAL', message: 'EACCES: permission denied', retryable: false });
    expect(serializeError({ code: 'ENOENT', message: 'gone' }).code).toBe('KLT_ERR_INTERNAL');
  });

  it('keeps an error already in the serialized form as it is (idempotent)', () => {
    const once = serializeError(new KubeletError('KLT_ERR_API_CONFLICT', 'stale', { retryable: true }));
    expect(serializeError(once)).toEqual(once);
    expect(serializeError({ code: 'KLT_ERR_API_GONE', message: 'x' })).toEqual({ code: 'KLT_ERR_API_GONE', message: 'x', retryable: false });
  });

  it('is the form the journal writes', () => {
    const err = new KubeletError('KLT_ERR_IMAGE_PULL', 'no such image', { retryable: true });
    expect(toJournalPayload({ error: err })).toEqual({ error: serializeError(err) });
  });
});

describe('deserializeError', () => {
  it.each(KUBELET_ERROR_CODES.map((code, i) => [code, i % 2 === 0] as const))('round-trips %s (retryable %s) through JSON', (code, retryable) => {
    const original = new KubeletError(code, `failed with ${code}`, { retryable });
    const back = deserializeError(JSON.parse(JSON.stringify(original)));
    expect(back).toBeInstanceOf(KubeletError);
    expect({ code: back.code, message: back.message, retryable: back.retryable }).toEqual({ code, message: `failed with ${code}`, retryable });
    expect(serializeError(back)).toEqual(serializeError(original));
  });

  it('reads anything else as serializeError would have made it', () => {
    const back = deserializeError({ code: 'ENOENT', message: 'gone' });
    expect(back).toBeInstanceOf(KubeletError);
    expect(back.code).toBe('KLT_ERR_INTERNAL');
  });
});
