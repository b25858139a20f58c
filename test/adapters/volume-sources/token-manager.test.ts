import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createVolumeSources } from '../../../src/adapters/volume-sources/create-volume-sources.js';
import { TOKEN_RETRY_MS, tokenRefreshAtMs } from '../../../src/adapters/volume-sources/token-manager.js';
import { KubeletError } from '../../../src/domain/errors.js';
import type { TokenRequestSpec } from '../../../src/ports/volume-sources.js';
import { FakeVolumeApi } from './fake-volume-api.js';
import { capturedLogger } from './helpers.js';

const HOUR_MS = 3_600_000;
const unavailable = () => new KubeletError('KLT_ERR_API_UNAVAILABLE', 'connect ECONNREFUSED', { retryable: true });

const spec = (over: Partial<TokenRequestSpec> = {}): TokenRequestSpec => ({
  namespace: 'ns', serviceAccountName: 'default', audience: 'vault', expirationSeconds: 3600, pod: { namespace: 'ns', name: 'pod-a', uid: 'a' }, ...over,
});

function setup() {
  const clock = new SimulatedClock();
  const api = new FakeVolumeApi(clock);
  const { logger, lines } = capturedLogger();
  const sources = createVolumeSources({ api, clock, logger });
  return { clock, api, sources, lines };
}

describe('tokenRefreshAtMs', () => {
  it.each([
    ['1 h: at 80 %', 0, 3600, 2880 * 1000],
    ['7 days: at 24 h', 0, 7 * 24 * 3600, 24 * HOUR_MS],
    ['10 min issued at t: at t + 8 min', 5000, 600, 5000 + 480 * 1000],
    ['an odd lifetime: 20 % in whole seconds', 0, 607, (607 - 121) * 1000],
  ])('%s', (_name, issuedAtMs, seconds, expected) => {
    expect(tokenRefreshAtMs(issuedAtMs, issuedAtMs + seconds * 1000, seconds)).toBe(expected);
  });
});

describe('token manager', () => {
  it('asks for a token bound to the pod, and hands the cached one back until 80 % of its lifetime', async () => {
    const { clock, api, sources } = setup();
    const first = await sources.serviceAccountToken(spec());
    expect(first).toEqual({ token: 'token-1', expirationTimestampMs: HOUR_MS, refreshAtMs: 2880 * 1000 });
    expect(api.tokenRequests).toEqual([{
      namespace: 'ns',
      serviceAccountName: 'default',
      spec: { audiences: ['vault'], expirationSeconds: 3600, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'pod-a', uid: 'a' } },
    }]);
    clock.set(first.refreshAtMs - 1);
    expect((await sources.serviceAccountToken(spec())).token).toBe('token-1');
    clock.set(first.refreshAtMs);
    const second = await sources.serviceAccountToken(spec());
    expect(second.token).toBe('token-2');
    expect(second.refreshAtMs).toBe(first.refreshAtMs + 2880 * 1000);
    expect(api.tokenRequests).toHaveLength(2);
    sources.close();
  });

  it('refreshes a long-lived token 24 h after it was issued', async () => {
    const { clock, sources } = setup();
    const week = spec({ expirationSeconds: 7 * 24 * 3600 });
    expect((await sources.serviceAccountToken(week)).refreshAtMs).toBe(24 * HOUR_MS);
    clock.set(24 * HOUR_MS - 1);
    expect((await sources.serviceAccountToken(week)).token).toBe('token-1');
    clock.set(24 * HOUR_MS);
    expect((await sources.serviceAccountToken(week)).token).toBe('token-2');
    sources.close();
  });

  it('reckons the lifetime the server granted, not the one asked for', async () => {
    const { api, sources } = setup();
    api.grantSeconds = 600;
    expect(await sources.serviceAccountToken(spec())).toMatchObject({ expirationTimestampMs: 600_000, refreshAtMs: 480_000 });
    sources.close();
  });

  it('keeps one token per audience, lifetime and pod, and asks for the API server\'s audience when none is given', async () => {
    const { api, sources } = setup();
    await sources.serviceAccountToken(spec());
    await sources.serviceAccountToken(spec({ audience: '' }));
    await sources.serviceAccountToken(spec({ expirationSeconds: 7200 }));
    await sources.serviceAccountToken(spec({ pod: { namespace: 'ns', name: 'pod-b', uid: 'b' } }));
    await sources.serviceAccountToken(spec());
    expect(api.tokenRequests).toHaveLength(4);
    expect(api.tokenRequests[1]!.spec).not.toHaveProperty('audiences');
    sources.close();
  });

  it('makes one request for concurrent asks of one token', async () => {
    const { api, sources } = setup();
    const tokens = await Promise.all([sources.serviceAccountToken(spec()), sources.serviceAccountToken(spec())]);
    expect(tokens.map((t) => t.token)).toEqual(['token-1', 'token-1']);
    expect(api.tokenRequests).toHaveLength(1);
    sources.close();
  });

  it('answers the old token when a refresh fails while it is still valid, logs without the token, and asks to retry soon', async () => {
    const { clock, api, sources, lines } = setup();
    const first = await sources.serviceAccountToken(spec());
    clock.set(first.refreshAtMs);
    api.failNext('createServiceAccountToken', unavailable());
    const kept = await sources.serviceAccountToken(spec());
    expect(kept).toEqual({ ...first, refreshAtMs: first.refreshAtMs + TOKEN_RETRY_MS });
    const log = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(log).toContainEqual(expect.objectContaining({ msg: 'Couldn\'t update token', podUid: 'a', serviceAccount: 'default' }));
    expect(lines.join('')).not.toContain('token-1');
    // The next ask, with the API back, gets a new token.
    expect((await sources.serviceAccountToken(spec())).token).toBe('token-2');
    sources.close();
  });

  it('rejects when a refresh fails and the old token has expired, or when there is no token yet', async () => {
    const { clock, api, sources } = setup();
    api.failNext('createServiceAccountToken', unavailable());
    await expect(sources.serviceAccountToken(spec())).rejects.toMatchObject({ code: 'KLT_ERR_API_UNAVAILABLE' });
    await sources.serviceAccountToken(spec({ expirationSeconds: 600 }));
    clock.set(600_001);
    api.failNext('createServiceAccountToken', unavailable());
    await expect(sources.serviceAccountToken(spec({ expirationSeconds: 600 }))).rejects.toMatchObject({ code: 'KLT_ERR_API_UNAVAILABLE' });
    sources.close();
  });

  it('forgets a pod\'s tokens when the pod is unregistered, also one being requested', async () => {
    const { api, sources } = setup();
    await sources.serviceAccountToken(spec());
    await sources.serviceAccountToken(spec({ pod: { namespace: 'ns', name: 'pod-b', uid: 'b' } }));
    sources.unregisterPod('a');
    expect((await sources.serviceAccountToken(spec())).token).toBe('token-3');
    expect((await sources.serviceAccountToken(spec({ pod: { namespace: 'ns', name: 'pod-b', uid: 'b' } }))).token).toBe('token-2');

    const pending = sources.serviceAccountToken(spec({ audience: 'other' }));
    sources.unregisterPod('a');
    expect((await pending).token).toBe('token-4');
    expect((await sources.serviceAccountToken(spec({ audience: 'other' }))).token).toBe('token-5');
    expect(api.tokenRequests).toHaveLength(5);
    sources.close();
  });
});
