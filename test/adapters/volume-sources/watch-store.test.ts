/** The Watch strategy, through the VolumeSources it is the default of. */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createVolumeSources } from '../../../src/adapters/volume-sources/create-volume-sources.js';
import { REFLECTOR_BACKOFF_INITIAL_MS } from '../../../src/adapters/apiserver/reflector.js';
import { DEFAULT_MAX_IDLE_MS, IDLE_CHECK_PERIOD_MS, SYNC_TIMEOUT_MS } from '../../../src/adapters/volume-sources/watch-store.js';
import { KubeletError } from '../../../src/domain/errors.js';
import { settle } from '../../support/settle.js';
import { FakeVolumeApi } from './fake-volume-api.js';
import { mounting, pod } from './helpers.js';

const logger = pino({ level: 'silent' });
const unavailable = () => new KubeletError('KLT_ERR_API_UNAVAILABLE', 'connect ECONNREFUSED', { retryable: true });
const gone = () => new KubeletError('KLT_ERR_API_GONE', 'too old resource version');

function setup() {
  const clock = new SimulatedClock();
  const api = new FakeVolumeApi(clock);
  const sources = createVolumeSources({ api, clock, logger });
  const text = async (name: string, key = 'k') => (await sources.configMap('ns', name))?.data[key]?.toString();
  const lists = () => api.calls.filter((c) => c.startsWith('list'));
  return { clock, api, sources, text, lists };
}

describe('Watch strategy', () => {
  it('starts one watch per object shared by two pods, and stops it when the last pod is unregistered', async () => {
    const { api, sources, text, lists } = setup();
    api.put('configmaps', { metadata: { namespace: 'ns', name: 'cm' }, data: { k: 'v1' } });
    sources.registerPod(mounting('a', { configMaps: ['cm'] }));
    sources.registerPod(mounting('b', { configMaps: ['cm'] }));
    await settle(3);
    expect(lists()).toEqual(['list configmaps ns/cm']);
    expect(api.openWatches('configmaps', 'ns', 'cm')).toHaveLength(1);
    expect(await text('cm')).toBe('v1');

    sources.unregisterPod('a');
    expect(api.openWatches('configmaps', 'ns', 'cm')).toHaveLength(1);
    expect(await text('cm')).toBe('v1');
    sources.unregisterPod('b');
    expect(api.openWatches('configmaps', 'ns', 'cm')).toHaveLength(0);
    await expect(sources.configMap('ns', 'cm')).rejects.toMatchObject({ code: 'KLT_ERR_VOLUME_SOURCE' });
    sources.close();
  });

  it('answers a change the watch brought on the next read, without a GET', async () => {
    const { api, sources, text } = setup();
    api.put('configmaps', { metadata: { namespace: 'ns', name: 'cm' }, data: { k: 'v1' } });
    sources.registerPod(mounting('a', { configMaps: ['cm'] }));
    expect(await text('cm')).toBe('v1');
    api.put('configmaps', { metadata: { namespace: 'ns', name: 'cm' }, data: { k: 'v2' } });
    expect(await text('cm')).toBe('v2');
    api.delete('configmaps', 'ns', 'cm');
    expect(await sources.configMap('ns', 'cm')).toBeUndefined();
    expect(api.calls.filter((c) => c.startsWith('get'))).toEqual([]);
    sources.close();
  });

  it('answers undefined for an object that does not exist, and sees it once created', async () => {
    const { api, sources, text } = setup();
    sources.registerPod(mounting('a', { secrets: ['later'] }));
    expect(await sources.secret('ns', 'later')).toBeUndefined();
    api.put('secrets', { metadata: { namespace: 'ns', name: 'later' }, data: { k: Buffer.from('s3cret').toString('base64') } });
    expect((await sources.secret('ns', 'later'))?.data['k']?.toString()).toBe('s3cret');
    expect(await text('never-registered').catch((e: KubeletError) => e.code)).toBe('KLT_ERR_VOLUME_SOURCE');
    sources.close();
  });

  it('makes a read wait for the first list, and rejects with the list\'s error after a second without one', async () => {
    const { api, clock, sources, text } = setup();
    api.put('configmaps', { metadata: { namespace: 'ns', name: 'cm' }, data: { k: 'v1' } });
    api.failNext('listObject', unavailable());
    api.failNext('listObject', unavailable());
    sources.registerPod(mounting('a', { configMaps: ['cm'] }));
    const read = sources.configMap('ns', 'cm').catch((e: unknown) => e);
    await settle(3);
    clock.increment(REFLECTOR_BACKOFF_INITIAL_MS); // the second list fails too
    await settle(3);
    clock.increment(SYNC_TIMEOUT_MS - REFLECTOR_BACKOFF_INITIAL_MS);
    expect(await read).toMatchObject({ code: 'KLT_ERR_API_UNAVAILABLE', retryable: true });

    clock.increment(3 * REFLECTOR_BACKOFF_INITIAL_MS - SYNC_TIMEOUT_MS); // the third list, after 800 + 1600 ms, answers
    await settle(3);
    expect(await text('cm')).toBe('v1');
    sources.close();
  });

  it.each([
    ['a broken connection', unavailable],
    ['410 Gone', gone],
  ])('lists and watches again after the back-off when the watch ends with %s', async (_name, err) => {
    const { api, clock, sources, text, lists } = setup();
    api.put('configmaps', { metadata: { namespace: 'ns', name: 'cm' }, data: { k: 'v1' } });
    sources.registerPod(mounting('a', { configMaps: ['cm'] }));
    expect(await text('cm')).toBe('v1');
    api.breakWatch(api.openWatches('configmaps', 'ns', 'cm')[0]!, err());
    api.put('configmaps', { metadata: { namespace: 'ns', name: 'cm' }, data: { k: 'v2' } }); // missed: no watch open
    expect(await text('cm')).toBe('v1');
    clock.increment(REFLECTOR_BACKOFF_INITIAL_MS - 1);
    await settle(3);
    expect(lists()).toHaveLength(1);
    clock.increment(1);
    await settle(3);
    expect(lists()).toHaveLength(2);
    expect(api.openWatches('configmaps', 'ns', 'cm')).toHaveLength(1);
    expect(await text('cm')).toBe('v2');
    sources.close();
  });

  it('resumes a watch the server closed from the last bookmark\'s resourceVersion, at once', async () => {
    const { api, clock, sources, text, lists } = setup();
    api.put('configmaps', { metadata: { namespace: 'ns', name: 'cm' }, data: { k: 'v1' } });
    sources.registerPod(mounting('a', { configMaps: ['cm'] }));
    expect(await text('cm')).toBe('v1');
    const first = api.openWatches('configmaps', 'ns', 'cm')[0]!;
    first.onEvent('BOOKMARK', { metadata: { resourceVersion: '555' } });
    clock.increment(5 * 60_000);
    first.stopped = true;
    first.onDone(null);
    await settle(3);
    expect(api.calls.at(-1)).toBe('watch configmaps ns/cm from 555');
    expect(lists()).toHaveLength(1);
    expect(await text('cm')).toBe('v1');
    sources.close();
  });

  it('stops watching an immutable object once read, and keeps answering its content', async () => {
    const { api, sources, text, lists } = setup();
    api.put('configmaps', { metadata: { namespace: 'ns', name: 'frozen' }, data: { k: 'v1' }, immutable: true });
    sources.registerPod(mounting('a', { configMaps: ['frozen'] }));
    expect(await text('frozen')).toBe('v1');
    expect(api.openWatches('configmaps', 'ns', 'frozen')).toHaveLength(0);
    expect(await text('frozen')).toBe('v1');
    sources.registerPod(mounting('b', { configMaps: ['frozen'] }));
    expect(await text('frozen')).toBe('v1');
    expect(lists()).toHaveLength(1);
    sources.close();
  });

  it('stops a watch nobody read for the idle time, and starts it again on the next read', async () => {
    const { api, clock, sources, text, lists } = setup();
    api.put('configmaps', { metadata: { namespace: 'ns', name: 'env-only' }, data: { k: 'v1' } });
    sources.registerPod(pod('a', { containers: [{ name: 'c', image: 'i', envFrom: [{ configMapRef: { name: 'env-only' } }] }] }));
    expect(await text('env-only')).toBe('v1');
    clock.increment(DEFAULT_MAX_IDLE_MS + IDLE_CHECK_PERIOD_MS);
    expect(api.openWatches('configmaps', 'ns', 'env-only')).toHaveLength(0);
    api.put('configmaps', { metadata: { namespace: 'ns', name: 'env-only' }, data: { k: 'v2' } });
    expect(await text('env-only')).toBe('v2');
    expect(lists()).toHaveLength(2);
    expect(api.openWatches('configmaps', 'ns', 'env-only')).toHaveLength(1);
    sources.close();
  });

  it('follows a pod update: watches the names it gained, stops those it lost', async () => {
    const { api, sources } = setup();
    sources.registerPod(mounting('a', { configMaps: ['old'] }));
    await settle(3);
    sources.registerPod(mounting('a', { configMaps: ['new'] }));
    await settle(3);
    expect(api.openWatches('configmaps', 'ns', 'old')).toHaveLength(0);
    expect(api.openWatches('configmaps', 'ns', 'new')).toHaveLength(1);
    sources.close();
    expect(api.openWatches('configmaps', 'ns', 'new')).toHaveLength(0);
  });
});
