import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createStandaloneVolumeSources, createVolumeSources } from '../../../src/adapters/volume-sources/create-volume-sources.js';
import type { ChangeDetectionStrategy } from '../../../src/adapters/volume-sources/object-manager.js';
import { KubeletError } from '../../../src/domain/errors.js';
import { settle } from '../../support/settle.js';
import { FakeVolumeApi } from './fake-volume-api.js';
import { mounting, pod } from './helpers.js';

const logger = pino({ level: 'silent' });

describe('createVolumeSources', () => {
  it('Get strategy: makes a GET on every read, with no pod registered and no watch', async () => {
    const clock = new SimulatedClock();
    const api = new FakeVolumeApi(clock);
    const sources = createVolumeSources({ api, clock, logger, strategy: 'Get' });
    api.put('configmaps', { metadata: { namespace: 'ns', name: 'cm' }, data: { k: 'v1' } });
    expect((await sources.configMap('ns', 'cm'))?.data['k']?.toString()).toBe('v1');
    api.put('configmaps', { metadata: { namespace: 'ns', name: 'cm' }, data: { k: 'v2' } });
    expect((await sources.configMap('ns', 'cm'))?.data['k']?.toString()).toBe('v2');
    expect(await sources.configMap('ns', 'missing')).toBeUndefined();
    api.failNext('getObject', new KubeletError('KLT_ERR_API_FORBIDDEN', 'no relationship found'));
    await expect(sources.configMap('ns', 'cm')).rejects.toMatchObject({ code: 'KLT_ERR_API_FORBIDDEN' });
    expect(api.calls).toEqual(['get configmaps ns/cm', 'get configmaps ns/cm', 'get configmaps ns/missing', 'get configmaps ns/cm']);
    sources.close();
  });

  it('registers a pod with both managers: its ConfigMaps and its Secrets are watched', async () => {
    const clock = new SimulatedClock();
    const api = new FakeVolumeApi(clock);
    const sources = createVolumeSources({ api, clock, logger });
    sources.registerPod(pod('a', {
      imagePullSecrets: [{ name: 'registry' }],
      containers: [{ name: 'c', image: 'i', env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'settings', key: 'x' } } }] }],
      volumes: [{ name: 'v', secret: { secretName: 'tls' } }],
    }));
    await settle(3);
    expect(api.calls.filter((c) => c.startsWith('watch')).sort()).toEqual([
      'watch configmaps ns/settings from 100',
      'watch secrets ns/registry from 100',
      'watch secrets ns/tls from 100',
    ]);
    sources.unregisterPod('a');
    expect(api.watches.every((w) => w.stopped)).toBe(true);
    sources.close();
  });

  it('refuses an unknown strategy with KLT_ERR_CONFIG_INVALID', () => {
    const clock = new SimulatedClock();
    expect(() => createVolumeSources({ api: new FakeVolumeApi(clock), clock, logger, strategy: 'Poll' as ChangeDetectionStrategy }))
      .toThrow(expect.objectContaining({ code: 'KLT_ERR_CONFIG_INVALID' }));
  });

  it('close() stops every watch and timer', async () => {
    const clock = new SimulatedClock();
    const api = new FakeVolumeApi(clock);
    const sources = createVolumeSources({ api, clock, logger });
    sources.registerPod(mounting('a', { configMaps: ['cm'], secrets: ['s'] }));
    await settle(3);
    sources.close();
    expect(api.watches.every((w) => w.stopped)).toBe(true);
    expect((clock as unknown as { timeouts: Map<unknown, unknown> }).timeouts.size).toBe(0);
  });
});

describe('createStandaloneVolumeSources', () => {
  it('rejects every read with KLT_ERR_VOLUME_SOURCE, and takes pods without effect', async () => {
    const sources = createStandaloneVolumeSources();
    sources.registerPod(mounting('a', { configMaps: ['cm'] }));
    const reads = [
      sources.configMap('ns', 'cm'),
      sources.secret('ns', 's'),
      sources.serviceAccountToken({ namespace: 'ns', serviceAccountName: 'default', audience: '', expirationSeconds: 3600, pod: { namespace: 'ns', name: 'p', uid: 'a' } }),
    ];
    for (const read of reads) {
      const err = await read.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KubeletError);
      expect(err).toMatchObject({ code: 'KLT_ERR_VOLUME_SOURCE', retryable: false });
    }
    sources.unregisterPod('a');
  });
});
