/**
 * The node status and lease machines with their real effects through an API outage, which only
 * the test API server has on demand (it refuses connections for a while); on the wall clock with
 * short periods (status every 500 ms, lease of 2 s renewed every 500 ms) so a run takes seconds.
 * Registering, Ready and the Lease on a real API server are in node-machines.e2e.test.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnyActorRef } from 'xstate';
import { createApiClients, heartbeatTimeoutMs } from '../../../src/adapters/apiserver/create-api-clients.js';
import { systemClock } from '../../../src/adapters/system-clock.js';
import type { LeaseObject, NodeObject } from '../../../src/domain/node-status/api-objects.js';
import { startTestApiServer, type TestApiServer } from '../../apiserver/index.js';
import { startNodeMachines } from './node-fixtures.js';

const UPDATE_MS = 500;
const LEASE_SECONDS = 2;

let server: TestApiServer | undefined;
let root: AnyActorRef | undefined;
let status: AnyActorRef;
afterEach(async () => {
  root?.stop();
  await server?.close();
});

async function startNode() {
  server = await startTestApiServer();
  const dir = mkdtempSync(join(tmpdir(), 'kts-node-'));
  const logger = pino({ level: 'silent' });
  const clients = createApiClients({
    kubeconfigPath: server.kubeconfigPath(dir), qps: 50, burst: 100, eventQps: 50, eventBurst: 100,
    heartbeatTimeoutMs: heartbeatTimeoutMs(UPDATE_MS, LEASE_SECONDS), clock: systemClock, logger,
  });
  ({ root, status } = startNodeMachines(clients, 'it-node', { updateMs: UPDATE_MS, leaseSeconds: LEASE_SECONDS }));
  const api = server;
  // Read back through the API, as any other client would see it.
  const node = () => clients.main.getNode('it-node').catch(() => undefined);
  const lease = () => clients.main.getLease('kube-node-lease', 'it-node').catch(() => undefined);
  return { api, status, node, lease };
}

const ready = (n: NodeObject | undefined) => n?.status?.conditions?.find((c) => c.type === 'Ready');
const renewMs = (l: LeaseObject | undefined) => (l?.spec.renewTime ? Date.parse(l.spec.renewTime) : 0);

describe('node status and lease through an API server outage', () => {
  it('survives an API outage, and lease and status resume within a period of its end', async () => {
    const { api, status, node, lease } = await startNode();
    status.send({ type: 'node.runtime.health', runtimeReady: true, networkReady: true, observedAtMs: systemClock.now() });
    status.send({ type: 'node.pleg.health', healthy: true, observedAtMs: systemClock.now() });
    await expect.poll(async () => ready(await node())?.status, { timeout: 5_000 }).toBe('True');
    await expect.poll(lease, { timeout: 3_000 }).toBeDefined();
    const outage = api.faults.refuseConnections(2_000);
    // The runtime goes away during the outage: the status must say so once the server is back.
    status.send({ type: 'node.runtime.health', runtimeReady: false, networkReady: false, message: 'connection refused', observedAtMs: systemClock.now() });
    await outage;
    const back = Date.now();
    await expect.poll(async () => renewMs(await lease()), { timeout: 3_000 }).toBeGreaterThan(back - 1);
    await expect.poll(async () => ready(await node())?.status, { timeout: 3_000 }).toBe('False');
    expect(ready(await node())?.message).toBe('container runtime is down: connection refused');
    // Within the renew period or the back-off step under way (at most 800 ms after five quick tries), plus slack.
    expect(renewMs(await lease()) - back).toBeLessThan(1_500);
    expect(root?.getSnapshot().status).toBe('active');
  });
});
