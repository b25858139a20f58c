/**
 * The streaming tokens: single use, gone after the TTL (under an injected clock), bounded in number
 * with expired ones making room first.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { grpcStatusFor } from '../../../../src/adapters/embedded-runtime/grpc-handlers.js';
import { MAX_IN_FLIGHT, STREAM_TOKEN_TTL_MS, StreamRequestCache } from '../../../../src/adapters/embedded-runtime/streaming/request-cache.js';

function cacheAt(clock: { now: number }, extra: { maxInFlight?: number } = {}) {
  return new StreamRequestCache<string>({ now: () => clock.now, ...extra });
}

describe('StreamRequestCache', () => {
  it('gives each request a URL-safe token of 11 characters, usable once', () => {
    const cache = cacheAt({ now: 0 });
    const a = cache.insert('a');
    const b = cache.insert('b');
    expect(a).toMatch(/^[A-Za-z0-9_-]{11}$/);
    expect(a).not.toBe(b);
    expect(cache.consume(a)).toBe('a');
    expect(cache.consume(a)).toBeUndefined();
    expect(cache.consume(b)).toBe('b');
    expect(cache.consume('nonsense')).toBeUndefined();
  });

  it('expires a token after Go\'s one minute', () => {
    const clock = { now: 1000 };
    const cache = cacheAt(clock);
    expect(STREAM_TOKEN_TTL_MS).toBe(60_000);
    const early = cache.insert('early');
    const late = cache.insert('late');
    clock.now += STREAM_TOKEN_TTL_MS - 1;
    expect(cache.consume(early)).toBe('early');
    clock.now += 1;
    expect(cache.consume(late)).toBeUndefined();
  });

  it('holds at most maxInFlight tokens, then RESOURCE_EXHAUSTED until some expire', () => {
    expect(MAX_IN_FLIGHT).toBe(1000);
    const clock = { now: 0 };
    const cache = cacheAt(clock, { maxInFlight: 3 });
    cache.insert('1');
    clock.now = 10;
    cache.insert('2');
    cache.insert('3');
    let refused: unknown;
    try {
      cache.insert('4');
    } catch (err) {
      refused = err;
    }
    expect(grpcStatusFor(refused)).toEqual({ code: GrpcStatus.RESOURCE_EXHAUSTED, details: 'maximum number of in-flight requests exceeded' });
    // The first expires: room for one more, and only one.
    clock.now = STREAM_TOKEN_TTL_MS;
    expect(() => cache.insert('4')).not.toThrow();
    expect(() => cache.insert('5')).toThrow();
    expect(cache.size).toBe(3);
  });

  it('draws again when a token is already taken', () => {
    const draws = [Buffer.alloc(8, 1), Buffer.alloc(8, 1), Buffer.alloc(8, 2)];
    const cache = new StreamRequestCache<string>({ now: () => 0, random: () => draws.shift()! });
    const a = cache.insert('a');
    const b = cache.insert('b');
    expect(a).not.toBe(b);
    expect(b).toBe(Buffer.alloc(8, 2).toString('base64url'));
  });
});
