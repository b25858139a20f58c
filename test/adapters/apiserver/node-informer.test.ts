/**
 * The kubelet's own Node followed over its API client, against the test API server on loopback:
 * nothing handed over while the Node does not exist; its creation, a label added and each status
 * write seen through the watch (field selector metadata.name, so another Node is never seen); after
 * a broken watch answered 410 Gone it lists again and still follows; stopped, it hands over nothing.
 */
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { nodeFollower } from '../../../src/adapters/apiserver/node-informer.js';
import { systemClock } from '../../../src/adapters/system-clock.js';
import type { NodeObject } from '../../../src/ports/apiserver.js';
import { useApiClientsOnTestServer } from '../../support/test-api-clients.js';

const logger = pino({ level: 'silent' });
const cluster = useApiClientsOnTestServer('kubelet-ts-node-informer-');

describe('the node informer against the test API server', () => {
  it('follows its own Node only, through creation, label changes and a relist after 410 Gone', async () => {
    const seen: NodeObject[] = [];
    const follow = nodeFollower({ api: () => cluster.api.main, clock: systemClock, logger });
    const follower = follow('n1', (node) => void seen.push(node));
    const lastLabels = () => seen.at(-1)?.metadata.labels;
    try {
      await vi.waitUntil(() => cluster.server.requests.some((r) => r.watch && r.path === '/api/v1/nodes'), { timeout: 5_000, interval: 10 });
      expect(seen).toEqual([]);
      cluster.server.store.create('nodes', { metadata: { name: 'other', labels: { zone: 'x' } } });
      cluster.server.store.create('nodes', { metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1' } } });
      await vi.waitUntil(() => seen.length === 1, { timeout: 5_000, interval: 10 });
      const held = cluster.server.store.get('nodes', undefined, 'n1')!;
      expect(held.metadata).toBeDefined();
      cluster.server.store.update('nodes', { ...held, metadata: { ...held.metadata!, labels: { ...held.metadata!.labels, zone: 'a' } } });
      await vi.waitUntil(() => lastLabels()?.zone === 'a', { timeout: 5_000, interval: 10 });
      expect(seen.every((n) => n.metadata.name === 'n1')).toBe(true);

      const lists = () => cluster.server.requests.filter((r) => r.method === 'GET' && r.path === '/api/v1/nodes' && !r.watch).length;
      const before = lists();
      cluster.server.faults.failNext(1, 410, (r) => r.path === '/api/v1/nodes');
      cluster.server.faults.closeWatches();
      const again = cluster.server.store.get('nodes', undefined, 'n1')!;
      cluster.server.store.update('nodes', { ...again, spec: { podCIDR: '10.1.0.0/24', podCIDRs: ['10.1.0.0/24'] } });
      await vi.waitUntil(() => (seen.at(-1)?.spec as { podCIDR?: string } | undefined)?.podCIDR === '10.1.0.0/24', { timeout: 10_000, interval: 20 });
      expect(lists()).toBeGreaterThan(before);
    } finally {
      follower.stop();
    }
    // Stopped, its watch is closed: the server has no stream left to hand the next change to.
    await vi.waitUntil(() => cluster.server.watchCount() === 0, { timeout: 5_000, interval: 10 });
    const count = seen.length;
    const last = cluster.server.store.get('nodes', undefined, 'n1')!;
    cluster.server.store.update('nodes', { ...last, metadata: { ...last.metadata, labels: { zone: 'b' } } });
    expect(cluster.server.watchCount()).toBe(0);
    expect(seen.length).toBe(count);
  }, 20_000);
});
