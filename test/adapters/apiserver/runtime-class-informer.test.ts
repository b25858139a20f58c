/**
 * The RuntimeClass informer over the kubelet's own API client, against the test API server on
 * loopback: not synced before its first list; then each class's handler; a create, an update and a
 * delete seen through the watch; through a broken watch and failing lists it keeps what it knew, and
 * it is complete again once a list answers.
 */
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { startRuntimeClassInformer } from '../../../src/adapters/apiserver/runtime-class-informer.js';
import { systemClock } from '../../../src/adapters/system-clock.js';
import { useApiClientsOnTestServer } from '../../support/test-api-clients.js';

const logger = pino({ level: 'silent' });
const cluster = useApiClientsOnTestServer('kubelet-ts-runtime-class-informer-');
const PATH = '/apis/node.k8s.io/v1/runtimeclasses';

describe('the RuntimeClass informer against the test API server', () => {
  it('lists the classes\' handlers, follows them through its watch, and keeps them through an outage', async () => {
    cluster.server.store.create('runtimeclasses', { metadata: { name: 'gvisor' }, handler: 'runsc' });
    const informer = startRuntimeClassInformer({ api: cluster.api.main, clock: systemClock, logger });
    try {
      expect(informer.hasSynced()).toBe(false);
      expect(informer.handlerOf('gvisor')).toBeUndefined();
      await vi.waitUntil(() => informer.hasSynced(), { timeout: 5_000, interval: 10 });
      expect(informer.handlerOf('gvisor')).toBe('runsc');
      expect(informer.handlerOf('kata')).toBeUndefined();

      cluster.server.store.create('runtimeclasses', { metadata: { name: 'kata' }, handler: 'kata-qemu' });
      const held = cluster.server.store.get('runtimeclasses', '', 'gvisor')!;
      cluster.server.store.update('runtimeclasses', { ...held, handler: 'runsc-debug' });
      await vi.waitUntil(() => informer.handlerOf('kata') === 'kata-qemu' && informer.handlerOf('gvisor') === 'runsc-debug', { timeout: 5_000, interval: 10 });
      cluster.server.store.delete('runtimeclasses', '', 'kata');
      await vi.waitUntil(() => informer.handlerOf('kata') === undefined, { timeout: 5_000, interval: 10 });

      // An outage: the watch breaks and the next lists fail; what was known stays.
      const lists = () => cluster.server.requests.filter((r) => r.method === 'GET' && r.path === PATH && !r.watch).length;
      const before = lists();
      cluster.server.faults.failNext(2, 503, (r) => r.path === PATH);
      cluster.server.faults.closeWatches();
      cluster.server.store.create('runtimeclasses', { metadata: { name: 'late' }, handler: 'crun' });
      await vi.waitUntil(() => informer.handlerOf('late') === 'crun', { timeout: 10_000, interval: 20 });
      expect(lists()).toBeGreaterThan(before);
      expect(informer.handlerOf('gvisor')).toBe('runsc-debug');
    } finally {
      informer.stop();
    }
  }, 20_000);
});
