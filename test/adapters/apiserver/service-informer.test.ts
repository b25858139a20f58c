/**
 * The Service informer over the kubelet's own API client, against the test API server on loopback:
 * not synced before its first list; then every namespace's Services (the `kubernetes` one the
 * server keeps among them); a create, an update and a delete seen through the watch; after a broken
 * watch (410 Gone) it lists again and is still complete.
 */
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { startServiceInformer } from '../../../src/adapters/apiserver/service-informer.js';
import { systemClock } from '../../../src/adapters/system-clock.js';
import { useApiClientsOnTestServer } from '../../support/test-api-clients.js';

const logger = pino({ level: 'silent' });
const cluster = useApiClientsOnTestServer('kubelet-ts-service-informer-');

const names = (list: readonly { metadata: { namespace?: string; name?: string } }[]) => list.map((s) => `${s.metadata.namespace}/${s.metadata.name}`).sort();

describe('the Service informer against the test API server', () => {
  it('lists every namespace\'s Services, then follows them through its watch, and lists again after 410 Gone', async () => {
    cluster.server.store.create('namespaces', { metadata: { name: 'shop' } });
    cluster.server.store.create('services', { metadata: { name: 'cart', namespace: 'shop' }, spec: { ports: [{ name: 'http', port: 8080 }] } });
    const informer = startServiceInformer({ api: cluster.api.main, clock: systemClock, logger });
    try {
      expect(informer.hasSynced()).toBe(false);
      await vi.waitUntil(() => informer.hasSynced(), { timeout: 5_000, interval: 10 });
      expect(names(informer.list())).toEqual(['default/kubernetes', 'shop/cart']);
      const master = informer.list().find((s) => s.metadata.name === 'kubernetes');
      expect(master?.spec).toEqual({ clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, protocol: 'TCP' }] });
      const cart = informer.list().find((s) => s.metadata.name === 'cart');
      expect(cart?.spec?.clusterIP).toMatch(/^10\.96\.\d+\.\d+$/);
      expect(cart?.spec?.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);

      cluster.server.store.create('services', { metadata: { name: 'peers', namespace: 'shop' }, spec: { clusterIP: 'None', ports: [{ port: 7000 }] } });
      const held = cluster.server.store.get('services', 'shop', 'cart')!;
      cluster.server.store.update('services', { ...held, spec: { ...(held.spec as object), ports: [{ name: 'http', port: 9090 }] } });
      await vi.waitUntil(() => informer.list().length === 3 && informer.list().find((s) => s.metadata.name === 'cart')?.spec?.ports?.[0]?.port === 9090, { timeout: 5_000, interval: 10 });
      cluster.server.store.delete('services', 'shop', 'peers');
      await vi.waitUntil(() => informer.list().length === 2, { timeout: 5_000, interval: 10 });

      const lists = () => cluster.server.requests.filter((r) => r.method === 'GET' && r.path === '/api/v1/services' && !r.watch).length;
      const before = lists();
      // The watch resumed after the close is answered 410 Gone: the informer lists again.
      cluster.server.faults.failNext(1, 410, (r) => r.path === '/api/v1/services');
      cluster.server.faults.closeWatches();
      cluster.server.store.create('services', { metadata: { name: 'late', namespace: 'default' }, spec: { ports: [{ port: 80 }] } });
      await vi.waitUntil(() => names(informer.list()).includes('default/late'), { timeout: 10_000, interval: 20 });
      expect(lists()).toBeGreaterThan(before);
      expect(names(informer.list())).toEqual(['default/kubernetes', 'default/late', 'shop/cart']);
    } finally {
      informer.stop();
    }
  }, 20_000);
});
