import { describe, expect, it } from 'vitest';
import { decodeCredentialProviderConfig, validateCredentialProviders, type CredentialProvider } from '../../../src/domain/credentials/provider-config.js';
import { cachedAnswer, cachePlacement, parseProviderResponse, type CacheEntry } from '../../../src/domain/credentials/provider-response.js';

const V1 = 'credentialprovider.kubelet.k8s.io/v1';
const good = { name: 'ecr', matchImages: ['*.dkr.ecr.*.amazonaws.com'], defaultCacheDuration: '12h', apiVersion: V1, args: ['get'], env: [{ name: 'AWS_PROFILE', value: 'x' }] };

describe('decodeCredentialProviderConfig', () => {
  it('decodes a v1 config', () => {
    expect(decodeCredentialProviderConfig({ apiVersion: 'kubelet.config.k8s.io/v1', kind: 'CredentialProviderConfig', providers: [good] })).toEqual({
      providers: [{ name: 'ecr', matchImages: ['*.dkr.ecr.*.amazonaws.com'], defaultCacheDurationMs: 12 * 3600_000, apiVersion: V1, args: ['get'], env: [{ name: 'AWS_PROFILE', value: 'x' }] }],
    });
  });

  it('lists every problem: kind, apiVersion, unknown fields, a bad duration, tokenAttributes', () => {
    const got = decodeCredentialProviderConfig({ apiVersion: 'v1', kind: 'Other', extra: 1, providers: [{ ...good, defaultCacheDuration: 'soon', colour: 'red', tokenAttributes: {} }] });
    expect('errors' in got && got.errors.map((e) => e.field)).toEqual(['kind', 'apiVersion', 'extra', 'providers[0].colour', 'providers[0].defaultCacheDuration', 'providers[0].tokenAttributes']);
  });
});

describe('validateCredentialProviders (Go validateCredentialProviderConfig)', () => {
  const p = (over: Partial<CredentialProvider>): CredentialProvider => ({ name: 'a', matchImages: ['reg.io'], defaultCacheDurationMs: 0, apiVersion: V1, args: [], env: [], ...over });

  it('accepts a valid provider', () => {
    expect(validateCredentialProviders([p({})])).toEqual([]);
  });

  it('reports every invalid field at once', () => {
    const errors = validateCredentialProviders([
      p({ name: 'a/b', apiVersion: 'credentialprovider.kubelet.k8s.io/v2', matchImages: [] }),
      p({ name: '..', matchImages: ['reg io'], defaultCacheDurationMs: -1 }),
      p({ name: '..', apiVersion: '' }),
    ]);
    expect(errors.map((e) => `${e.field}: ${e.message.split(':')[0]}`)).toEqual([
      "providers.name: provider name cannot contain '/'",
      'providers.apiVersion: Unsupported value',
      'providers.matchImages: Required value',
      "providers.name: provider name cannot be '..'",
      'providers.matchImages: match image is invalid',
      'providers.defaultCacheDuration: defaultCacheDuration must be greater than or equal to 0',
      "providers.name: provider name cannot be '..'",
      'providers.name: Duplicate value',
      'providers.apiVersion: Required value',
    ]);
    expect(validateCredentialProviders([])[0]!.message).toContain('at least 1 item in plugins is required');
  });
});

describe('provider responses and their cache', () => {
  const response = (over: Record<string, unknown>) => JSON.stringify({ apiVersion: V1, kind: 'CredentialProviderResponse', cacheKeyType: 'Registry', auth: { 'reg.io': { username: 'u', password: 'p' } }, ...over });

  it('parses a response; refuses a wrong apiVersion, kind or cacheKeyType without quoting the output', () => {
    expect(parseProviderResponse(response({ cacheDuration: '5m' }), V1)).toEqual({ cacheKeyType: 'Registry', cacheDurationMs: 300_000, auth: { 'reg.io': { username: 'u', password: 'p' } } });
    for (const bad of [response({ apiVersion: 'credentialprovider.kubelet.k8s.io/v1beta1' }), response({ kind: 'X' }), response({ cacheKeyType: 'Pod' }), 'not json p']) {
      const got = parseProviderResponse(bad, V1);
      expect(got).toBeInstanceOf(Error);
      expect((got as Error).message).not.toMatch(/"p"|u:p/);
    }
  });

  it.each<[string, Record<string, unknown>, number, string | undefined, number | undefined]>([
    ['Image key', { cacheKeyType: 'Image', cacheDuration: '1m' }, 0, 'reg.io/team/app', 60_000],
    ['Registry key', { cacheKeyType: 'Registry', cacheDuration: '1m' }, 0, 'reg.io', 60_000],
    ['Global key', { cacheKeyType: 'Global' }, 30_000, 'global', 30_000],
    ['"0s": not cached', { cacheDuration: '0s' }, 30_000, undefined, undefined],
    ['absent and a zero default: not cached', {}, 0, undefined, undefined],
  ])('%s', (_, over, defaultMs, key, ttl) => {
    const answer = parseProviderResponse(response(over), V1);
    if (answer instanceof Error) throw answer;
    const placed = cachePlacement(answer, 'reg.io/team/app', defaultMs, 1000);
    expect(placed?.key).toBe(key);
    expect(placed && placed.entry.expiresAtMs - 1000).toBe(ttl);
  });

  it('looks up by image, then registry, then global, ignoring expired entries', () => {
    const auth = (u: string) => ({ 'reg.io': { username: u, password: '' } });
    const cache = new Map<string, CacheEntry>([['reg.io', { auth: auth('registry'), expiresAtMs: 100 }], ['global', { auth: auth('global'), expiresAtMs: 200 }]]);
    expect(cachedAnswer(cache, 'reg.io/x', 50)?.['reg.io']?.username).toBe('registry');
    expect(cachedAnswer(cache, 'reg.io/x', 150)?.['reg.io']?.username).toBe('global');
    expect(cachedAnswer(cache, 'reg.io/x', 250)).toBeUndefined();
  });
});
