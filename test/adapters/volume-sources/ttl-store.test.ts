/** The Cache strategy, through VolumeSources. */
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createVolumeSources } from '../../../src/adapters/volume-sources/create-volume-sources.js';
import { DEFAULT_OBJECT_TTL_MS } from '../../../src/adapters/volume-sources/ttl-store.js';
import { KubeletError } from '../../../src/domain/errors.js';
import { FakeVolumeApi } from './fake-volume-api.js';
import { capturedLogger, mounting } from './helpers.js';

const unavailable = () => new KubeletError('KLT_ERR_API_UNAVAILABLE', 'connect ECONNREFUSED', { retryable: true });

function setup() {
  const clock = new SimulatedClock();
  const api = new FakeVolumeApi(clock);
  const { logger, lines } = capturedLogger();
  const sources = createVolumeSources({ api, clock, logger, strategy: 'Cache' });
  const gets = () => api.calls.filter((c) => c.startsWith('get'));
  const secret = async (name: string) => (await sources.secret('ns', name))?.data['password']?.toString();
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  return { clock, api, sources, gets, secret, b64, lines };
}

describe('Cache strategy', () => {
  it('serves a fetched object for the TTL, then asks again allowing the API server\'s cache', async () => {
    const { api, clock, sources, gets, secret, b64 } = setup();
    api.put('secrets', { metadata: { namespace: 'ns', name: 'db' }, data: { password: b64('one') } });
    sources.registerPod(mounting('a', { secrets: ['db'] }));
    expect(await secret('db')).toBe('one');
    api.put('secrets', { metadata: { namespace: 'ns', name: 'db' }, data: { password: b64('two') } });
    clock.increment(DEFAULT_OBJECT_TTL_MS - 1);
    expect(await secret('db')).toBe('one');
    expect(gets()).toEqual(['get secrets ns/db']);
    clock.increment(1);
    expect(await secret('db')).toBe('two');
    expect(gets()).toEqual(['get secrets ns/db', 'get secrets ns/db rv=0']);
    expect(api.watches).toEqual([]);
    sources.close();
  });

  it('drops what it holds when a pod registers a reference, so that pod reads the object afresh', async () => {
    const { api, sources, gets, secret, b64 } = setup();
    api.put('secrets', { metadata: { namespace: 'ns', name: 'db' }, data: { password: b64('one') } });
    sources.registerPod(mounting('a', { secrets: ['db'] }));
    expect(await secret('db')).toBe('one');
    api.put('secrets', { metadata: { namespace: 'ns', name: 'db' }, data: { password: b64('two') } });
    sources.registerPod(mounting('b', { secrets: ['db'] }));
    expect(await secret('db')).toBe('two');
    expect(gets()).toEqual(['get secrets ns/db', 'get secrets ns/db']);
    sources.close();
  });

  it('makes one GET for concurrent reads of one object', async () => {
    const { api, sources, gets, secret, b64 } = setup();
    api.put('secrets', { metadata: { namespace: 'ns', name: 'db' }, data: { password: b64('one') } });
    sources.registerPod(mounting('a', { secrets: ['db'] }));
    expect(await Promise.all([secret('db'), secret('db'), secret('db')])).toEqual(['one', 'one', 'one']);
    expect(gets()).toHaveLength(1);
    sources.close();
  });

  it('serves the object it holds when a refresh fails, and rejects when it holds none', async () => {
    const { api, clock, sources, secret, b64, lines } = setup();
    api.put('secrets', { metadata: { namespace: 'ns', name: 'db' }, data: { password: b64('hunter2') } });
    sources.registerPod(mounting('a', { secrets: ['db', 'other'] }));
    expect(await secret('db')).toBe('hunter2');
    clock.increment(DEFAULT_OBJECT_TTL_MS);
    api.failNext('getObject', unavailable());
    expect(await secret('db')).toBe('hunter2');
    api.failNext('getObject', unavailable());
    await expect(sources.secret('ns', 'other')).rejects.toMatchObject({ code: 'KLT_ERR_API_UNAVAILABLE' });
    expect(lines.join('')).toContain('Failed to refresh the object');
    expect(lines.join('')).not.toMatch(/hunter2|aHVudGVyMg/);
    sources.close();
  });

  it('answers undefined for a missing object and asks again on every read (a 404 is not cached)', async () => {
    const { api, sources, gets, secret, b64 } = setup();
    sources.registerPod(mounting('a', { secrets: ['late'] }));
    expect(await secret('late')).toBeUndefined();
    api.put('secrets', { metadata: { namespace: 'ns', name: 'late' }, data: { password: b64('now') } });
    expect(await secret('late')).toBe('now');
    expect(gets()).toEqual(['get secrets ns/late', 'get secrets ns/late']);
    sources.close();
  });

  it('refuses to read an object no registered pod refers to', async () => {
    const { sources } = setup();
    sources.registerPod(mounting('a', { secrets: ['db'] }));
    sources.unregisterPod('a');
    await expect(sources.secret('ns', 'db')).rejects.toMatchObject({ code: 'KLT_ERR_VOLUME_SOURCE' });
    sources.close();
  });
});
