import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { toKubeletError } from '../../../src/adapters/cri-grpc/grpc-errors.js';
import { KubeletError } from '../../../src/domain/errors.js';

function serviceError(code: status, details: string): Error {
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata: undefined });
}

describe('toKubeletError', () => {
  it.each([
    [status.UNAVAILABLE, 'KLT_ERR_CRI_UNAVAILABLE', true],
    [status.NOT_FOUND, 'KLT_ERR_CRI_NOT_FOUND', false],
    [status.DEADLINE_EXCEEDED, 'KLT_ERR_CRI_DEADLINE', true],
    [status.UNIMPLEMENTED, 'KLT_ERR_CRI_UNIMPLEMENTED', false],
    [status.ALREADY_EXISTS, 'KLT_ERR_CRI_ALREADY_EXISTS', false],
    [status.INVALID_ARGUMENT, 'KLT_ERR_CRI_INVALID_ARGUMENT', false],
    [status.UNKNOWN, 'KLT_ERR_CRI_FAILED', false],
    [status.INTERNAL, 'KLT_ERR_CRI_FAILED', false],
    [status.PERMISSION_DENIED, 'KLT_ERR_CRI_FAILED', false],
  ] as const)('maps gRPC status %s to %s (retryable %s)', (code, expected, retryable) => {
    const err = toKubeletError(serviceError(code, 'the runtime said so'), 'StartContainer');
    expect(err.code).toBe(expected);
    expect(err.retryable).toBe(retryable);
  });

  it('keeps the runtime message and names the RPC', () => {
    const err = toKubeletError(serviceError(status.NOT_FOUND, 'container "abc" not found'), 'ContainerStatus');
    expect(err.message).toBe('ContainerStatus: container "abc" not found');
    expect(err.cause).toBeInstanceOf(Error);
  });

  it('maps a non-gRPC error to KLT_ERR_CRI_FAILED and passes a KubeletError through unchanged', () => {
    expect(toKubeletError(new TypeError('boom'), 'Version').code).toBe('KLT_ERR_CRI_FAILED');
    const own = new KubeletError('KLT_ERR_CRI_NOT_FOUND', 'x');
    expect(toKubeletError(own, 'Version')).toBe(own);
  });
});
