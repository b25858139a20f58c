/**
 * The volume sources over the kubelet's own API client (KubeApi as VolumeApi), against the test API
 * server on loopback: a ConfigMap and a Secret read through the Watch strategy, an update seen
 * through the watch, a 404 through the Get strategy, and a bound token from the TokenRequest API.
 */
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../../src/adapters/system-clock.js';
import { createVolumeSources } from '../../../src/adapters/volume-sources/create-volume-sources.js';
import { useApiClientsOnTestServer } from '../../support/test-api-clients.js';
import { pod } from './helpers.js';

const logger = pino({ level: 'silent' });
const cluster = useApiClientsOnTestServer('kubelet-ts-volume-sources-');

describe('volume sources against the test API server', () => {
  it('reads a ConfigMap and a Secret through their watches, and sees an update', async () => {
    cluster.server.store.create('configmaps', { metadata: { name: 'settings', namespace: 'default' }, data: { mode: 'one' } });
    cluster.server.store.create('secrets', { metadata: { name: 'db', namespace: 'default' }, data: { password: Buffer.from('s3cret').toString('base64') } });
    const sources = createVolumeSources({ api: cluster.api.main, clock: systemClock, logger });
    sources.registerPod({ ...pod('w'), metadata: { name: 'web', namespace: 'default', uid: 'w' }, spec: {
      containers: [{ name: 'c', image: 'i', envFrom: [{ secretRef: { name: 'db' } }] }],
      volumes: [{ name: 'v', configMap: { name: 'settings' } }],
    } });
    try {
      expect((await sources.configMap('default', 'settings'))?.data['mode']?.toString()).toBe('one');
      expect((await sources.secret('default', 'db'))?.data['password']?.toString()).toBe('s3cret');

      const held = cluster.server.store.get('configmaps', 'default', 'settings')!;
      cluster.server.store.update('configmaps', { ...held, data: { mode: 'two' } });
      await vi.waitUntil(async () => (await sources.configMap('default', 'settings'))?.data['mode']?.toString() === 'two', { timeout: 5_000, interval: 20 });
      expect(cluster.server.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/configmaps/settings'))).toEqual([]);
    } finally {
      sources.close();
    }
  });

  it('answers undefined for a missing object through the Get strategy', async () => {
    const sources = createVolumeSources({ api: cluster.api.main, clock: systemClock, logger, strategy: 'Get' });
    expect(await sources.secret('default', 'nowhere')).toBeUndefined();
    sources.close();
  });

  it('gets a token bound to the pod from the TokenRequest API', async () => {
    cluster.server.store.create('serviceaccounts', { metadata: { name: 'app', namespace: 'default' } });
    const web = cluster.server.store.create('pods', { metadata: { name: 'token-pod', namespace: 'default' },
      spec: { nodeName: 'n1', serviceAccountName: 'app', containers: [{ name: 'c', image: 'i' }] } });
    const uid = web.metadata?.uid as string;
    const sources = createVolumeSources({ api: cluster.api.main, clock: systemClock, logger });
    try {
      const before = Date.now();
      const answer = await sources.serviceAccountToken({
        namespace: 'default', serviceAccountName: 'app', audience: 'vault', expirationSeconds: 3600, pod: { namespace: 'default', name: 'token-pod', uid },
      });
      expect(answer.expirationTimestampMs).toBeGreaterThanOrEqual(before + 3_599_000);
      expect(answer.refreshAtMs).toBe(answer.expirationTimestampMs - 720_000);
      const claims = await cluster.server.tokens.verify(answer.token, { audience: 'vault' });
      expect(claims['kubernetes.io']).toMatchObject({ namespace: 'default', serviceaccount: { name: 'app' }, pod: { name: 'token-pod', uid } });
      expect((await sources.serviceAccountToken({
        namespace: 'default', serviceAccountName: 'app', audience: 'vault', expirationSeconds: 3600, pod: { namespace: 'default', name: 'token-pod', uid },
      })).token).toBe(answer.token);
      expect(cluster.server.tokens.requests).toHaveLength(1);
    } finally {
      sources.close();
    }
  });
});
