/**
 * A credential provider plugin's exchange and cache (Go's plugin.go): the CredentialProviderRequest
 * written to its stdin, the CredentialProviderResponse read from its stdout, and the cache its
 * answer is kept in. The response must carry the provider's apiVersion and kind
 * CredentialProviderResponse, a cacheKeyType of Image, Registry or Global, and an `auth` map of
 * registry → {username, password}. Its cacheDuration decides the caching: "0s" not cached, absent
 * the provider's defaultCacheDuration (0: not cached), anything else that long. A lookup tries the
 * image, then its registry (first path component), then the global key.
 */
import { parseGoDuration } from '../config/duration.js';
import type { DockerConfig } from './keyring.js';
import { isPlainObject } from '../config/decode.js';

export type CacheKeyType = 'Image' | 'Registry' | 'Global';

export interface ProviderAnswer {
  cacheKeyType: CacheKeyType;
  /** undefined: the response did not say (the provider's default applies). */
  cacheDurationMs: number | undefined;
  auth: DockerConfig;
}

export function providerRequest(apiVersion: string, image: string): string {
  return JSON.stringify({ kind: 'CredentialProviderRequest', apiVersion, image });
}

/**
 * The plugin's stdout as an answer, or an Error whose message never quotes the output (it may hold
 * credentials), as Go words it.
 */
export function parseProviderResponse(stdout: string, apiVersion: string): ProviderAnswer | Error {
  let doc: unknown;
  try {
    doc = JSON.parse(stdout);
  } catch {
    return new Error('error reading GVK from response: the plugin\'s stdout is not JSON');
  }
  if (!isPlainObject(doc)) return new Error('error decoding credential provider plugin response from stdout');
  if (doc['apiVersion'] !== apiVersion) {
    return new Error(`apiVersion from credential plugin response did not match expected apiVersion:${apiVersion}, actual apiVersion:${typeof doc['apiVersion'] === 'string' ? doc['apiVersion'] : ''}`);
  }
  if (doc['kind'] !== 'CredentialProviderResponse') return new Error(`failed to decode CredentialProviderResponse, unexpected Kind: ${JSON.stringify(doc['kind'] ?? '')}`);
  const cacheKeyType = doc['cacheKeyType'];
  if (cacheKeyType !== 'Image' && cacheKeyType !== 'Registry' && cacheKeyType !== 'Global') {
    return new Error(`credential provider plugin did not return a valid cacheKeyType: ${JSON.stringify(cacheKeyType ?? '')}`);
  }
  let cacheDurationMs: number | undefined;
  if (doc['cacheDuration'] !== undefined && doc['cacheDuration'] !== null) {
    try {
      cacheDurationMs = parseGoDuration(String(doc['cacheDuration']));
    } catch {
      return new Error('error decoding credential provider plugin response from stdout');
    }
  }
  const auth: DockerConfig = {};
  const given = doc['auth'] ?? {};
  if (!isPlainObject(given)) return new Error('error decoding credential provider plugin response from stdout');
  for (const [registry, entry] of Object.entries(given)) {
    if (!isPlainObject(entry)) return new Error('error decoding credential provider plugin response from stdout');
    auth[registry] = { username: stringOr(entry['username']), password: stringOr(entry['password']) };
  }
  return { cacheKeyType, cacheDurationMs, auth };
}

/** The registry part of an image: its first path component (Go's parseRegistry). */
export function registryOf(image: string): string {
  return image.split('/')[0]!;
}

export const GLOBAL_CACHE_KEY = 'global';

export interface CacheEntry { auth: DockerConfig; expiresAtMs: number }

/** The key and expiry to cache an answer under, or undefined when it must not be cached. */
export function cachePlacement(answer: ProviderAnswer, image: string, defaultCacheDurationMs: number, nowMs: number): { key: string; entry: CacheEntry } | undefined {
  const duration = answer.cacheDurationMs ?? defaultCacheDurationMs;
  if (duration === 0) return undefined;
  const key = answer.cacheKeyType === 'Image' ? image : answer.cacheKeyType === 'Registry' ? registryOf(image) : GLOBAL_CACHE_KEY;
  return { key, entry: { auth: answer.auth, expiresAtMs: nowMs + duration } };
}

/** A cached answer for the image, by image, registry, then global key; expired entries do not count. */
export function cachedAnswer(cache: ReadonlyMap<string, CacheEntry>, image: string, nowMs: number): DockerConfig | undefined {
  for (const key of [image, registryOf(image), GLOBAL_CACHE_KEY]) {
    const entry = cache.get(key);
    if (entry && nowMs <= entry.expiresAtMs) return entry.auth;
  }
  return undefined;
}

function stringOr(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
