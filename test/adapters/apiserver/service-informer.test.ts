/**
 * The Service informer over the kubelet's own API client, against the test API server on loopback:
 * not synced before its first list; then every namespace's Services (the `kubernetes` one the
 * server keeps among them); a create, an update and a delete seen through the watch; after a broken
 * watch (410 Gone) it lists again and is still complete. Over a fake API: the namespace index and
 * its versions, and a long list taken in a chunk per turn.
 */
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { REPLACE_CHUNK_ITEMS } from '../../../src/adapters/apiserver/reflected-map.js';
import { startServiceInformer } from '../../../src/adapters/apiserver/service-informer.js';
import { systemClock } from '../../../src/adapters/system-clock.js';
import type { KubeObject, ServiceApi } from '../../../src/ports/apiserver.js';
import type { ServiceInformer } from '../../../src/ports/services.js';
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

describe('the Service informer\'s namespace index', () => {
  type Watch = Parameters<ServiceApi['watchServices']>[0];
  const object = (namespace: string, name: string, clusterIP: string, resourceVersion = '1'): KubeObject =>
    ({ metadata: { namespace, name, resourceVersion }, spec: { clusterIP, ports: [{ port: 80 }] } });

  /** A ServiceApi whose list answers `items` once asked and whose watch the test drives. */
  function fakeApi(items: KubeObject[]) {
    let watch: Watch | undefined;
    let syncedWhenWatched: boolean | undefined;
    let informer: ServiceInformer | undefined;
    const api: ServiceApi = {
      listServices: () => Promise.resolve({ resourceVersion: '1', items }),
      watchServices: (w) => {
        watch = w;
        syncedWhenWatched = informer?.hasSynced();
        return Promise.resolve({ stop: () => {} });
      },
    };
    return {
      start: () => (informer = startServiceInformer({ api, clock: systemClock, logger })),
      event: (type: 'ADDED' | 'MODIFIED' | 'DELETED', o: KubeObject) => watch!.onEvent(type, o),
      watched: () => watch !== undefined,
      syncedWhenWatched: () => syncedWhenWatched,
    };
  }
  const names = (informer: ServiceInformer, namespace: string) => [...informer.inNamespace(namespace).services.keys()].sort();

  it('keeps each namespace\'s Services by name, and a change moves only its own namespace\'s version', async () => {
    const api = fakeApi([object('default', 'kubernetes', '10.96.0.1'), object('shop', 'cart', '10.96.1.1'), object('ops', 'metrics', '10.96.2.1')]);
    const informer = api.start();
    try {
      await vi.waitUntil(() => api.watched(), { timeout: 5_000, interval: 5 });
      expect(names(informer, 'shop')).toEqual(['cart']);
      expect(informer.inNamespace('nowhere')).toEqual({ version: 0, services: new Map() });
      const shop = informer.inNamespace('shop').version;
      const ops = informer.inNamespace('ops').version;
      expect(shop).toBeGreaterThan(0);

      api.event('ADDED', object('shop', 'db', '10.96.1.2', '2'));
      expect(names(informer, 'shop')).toEqual(['cart', 'db']);
      const added = informer.inNamespace('shop').version;
      expect(added).not.toBe(shop);
      expect(informer.inNamespace('ops').version).toBe(ops);

      api.event('MODIFIED', object('shop', 'cart', '10.96.1.9', '3'));
      expect(informer.inNamespace('shop').services.get('cart')?.spec?.clusterIP).toBe('10.96.1.9');
      expect(informer.inNamespace('shop').version).not.toBe(added);
      expect(informer.inNamespace('ops').version).toBe(ops);

      api.event('DELETED', object('ops', 'metrics', '10.96.2.1', '4'));
      expect(informer.inNamespace('ops')).toEqual({ version: 0, services: new Map() });
      api.event('ADDED', object('ops', 'metrics', '10.96.2.1', '5'));
      // A namespace emptied and filled again does not come back at a version it had.
      expect(informer.inNamespace('ops').version).not.toBe(ops);
      expect(names(informer, 'default')).toEqual(['kubernetes']);
      expect(informer.list()).toHaveLength(4);
    } finally {
      informer.stop();
    }
  });

  it('values a long list a chunk per turn, swaps it in whole, and opens the watch after', async () => {
    const count = REPLACE_CHUNK_ITEMS * 3 + 1;
    const api = fakeApi(Array.from({ length: count }, (_, i) => object(`ns-${i % 7}`, `svc-${i}`, `10.97.${i >> 8}.${i & 255}`)));
    const informer = api.start();
    try {
      // Turns of the event loop that ran while the list was being taken in.
      let turns = 0;
      let sizes: number[] = [];
      while (!informer.hasSynced()) {
        sizes.push(informer.list().length);
        await new Promise((resolve) => setImmediate(resolve));
        turns++;
      }
      sizes = [...new Set(sizes)];
      expect(turns).toBeGreaterThanOrEqual(3);
      // Readers saw nothing of it until the whole list was in.
      expect(sizes).toEqual([0]);
      expect(informer.list()).toHaveLength(count);
      expect([0, 1, 2, 3, 4, 5, 6].reduce((n, i) => n + informer.inNamespace(`ns-${i}`).services.size, 0)).toBe(count);
      await vi.waitUntil(() => api.watched(), { timeout: 5_000, interval: 5 });
      expect(api.syncedWhenWatched()).toBe(true);
    } finally {
      informer.stop();
    }
  });
});
