import { describe, expect, it } from 'vitest';
import { KubeletError } from '../../../src/domain/errors.js';
import { toApiError } from '../../../src/adapters/apiserver/api-errors.js';

const apiException = (code: number, reason: string) => Object.assign(new Error(`HTTP-Code: ${code}`), { code, body: JSON.stringify({ kind: 'Status', reason, message: 'm' }) });

describe('toApiError', () => {
  it.each([
    [400, 'BadRequest', 'KLT_ERR_API_INVALID', false],
    [401, 'Unauthorized', 'KLT_ERR_API_UNAUTHORIZED', false],
    [403, 'Forbidden', 'KLT_ERR_API_FORBIDDEN', false],
    [404, 'NotFound', 'KLT_ERR_API_NOT_FOUND', false],
    [409, 'AlreadyExists', 'KLT_ERR_API_ALREADY_EXISTS', false],
    [409, 'Conflict', 'KLT_ERR_API_CONFLICT', false],
    [410, 'Expired', 'KLT_ERR_API_GONE', false],
    [422, 'Invalid', 'KLT_ERR_API_INVALID', false],
    [429, 'TooManyRequests', 'KLT_ERR_API_TOO_MANY_REQUESTS', true],
    [500, 'InternalError', 'KLT_ERR_API_FAILED', true],
    [503, 'ServiceUnavailable', 'KLT_ERR_API_UNAVAILABLE', true],
    [504, 'Timeout', 'KLT_ERR_API_TIMEOUT', true],
    [418, '', 'KLT_ERR_API_FAILED', false],
  ])('maps HTTP %d %s to %s', (status, reason, code, retryable) => {
    const err = toApiError(apiException(status, reason), 'get node');
    expect(err).toBeInstanceOf(KubeletError);
    expect(err.code).toBe(code);
    expect(err.retryable).toBe(retryable);
  });

  it('maps a refused connection deep in the cause chain to a retryable UNAVAILABLE', () => {
    const err = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }) });
    expect(toApiError(err, 'get node')).toMatchObject({ code: 'KLT_ERR_API_UNAVAILABLE', retryable: true });
  });

  it('passes our own errors through and calls anything else FAILED', () => {
    const own = new KubeletError('KLT_ERR_API_TIMEOUT', 'x', { retryable: true });
    expect(toApiError(own, 'y')).toBe(own);
    expect(toApiError(new Error('boom'), 'y').code).toBe('KLT_ERR_API_FAILED');
  });
});
