/**
 * The streaming server's tokens, as Go's request cache keeps them: Exec/Attach/PortForward store
 * their request under a fresh random token that the returned URL carries; the first request to the
 * URL takes it out (single use); a token not used within the TTL (1 minute) is gone. At most
 * MAX_IN_FLIGHT tokens wait at once — beyond, expired ones are dropped first, and if none is, the
 * RPC fails with RESOURCE_EXHAUSTED rather than letting an unauthenticated flood grow our memory.
 */
import { randomBytes } from 'node:crypto';
import { KubeletError } from '../../../domain/errors.js';

export const STREAM_TOKEN_TTL_MS = 60_000;
export const MAX_IN_FLIGHT = 1000;
/** 8 random bytes, URL-safe base64 without padding: 11 characters. */
const TOKEN_BYTES = 8;

interface Entry<T> {
  request: T;
  expiresAt: number;
}

export interface RequestCacheOptions {
  /** Milliseconds on any monotonic scale. */
  now: () => number;
  ttlMs?: number;
  maxInFlight?: number;
  random?: (size: number) => Buffer;
}

export class StreamRequestCache<T> {
  /** Insertion order is expiry order (one TTL for all), so the oldest are first. */
  private readonly entries = new Map<string, Entry<T>>();
  private readonly ttlMs: number;
  private readonly maxInFlight: number;
  private readonly random: (size: number) => Buffer;

  constructor(private readonly options: RequestCacheOptions) {
    this.ttlMs = options.ttlMs ?? STREAM_TOKEN_TTL_MS;
    this.maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
    this.random = options.random ?? randomBytes;
  }

  get size(): number {
    return this.entries.size;
  }

  insert(request: T): string {
    this.dropExpired();
    if (this.entries.size >= this.maxInFlight) {
      throw new KubeletError('KLT_ERR_CRI_RESOURCE_EXHAUSTED', 'maximum number of in-flight requests exceeded');
    }
    let token = this.newToken();
    while (this.entries.has(token)) token = this.newToken();
    this.entries.set(token, { request, expiresAt: this.options.now() + this.ttlMs });
    return token;
  }

  /** The request stored under `token`, removed; undefined when unknown, used or expired. */
  consume(token: string): T | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    this.entries.delete(token);
    return this.options.now() < entry.expiresAt ? entry.request : undefined;
  }

  private dropExpired(): void {
    const now = this.options.now();
    for (const [token, entry] of this.entries) {
      if (now < entry.expiresAt) break;
      this.entries.delete(token);
    }
  }

  private newToken(): string {
    return this.random(TOKEN_BYTES).toString('base64url');
  }
}
