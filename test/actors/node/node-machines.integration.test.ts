/**
 * The node status and lease machines with their real effects, against the test API server on
 * loopback, on the wall clock with short periods (status every 500 ms, lease of 2 s renewed every
 * 500 ms) so a run takes seconds.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, createMachine, type AnyActorRef } from 'xstate';
import { createApiClients, heartbeatTimeoutMs } from '../../../src/adapters/apiserver/create-api-clients.js';
import { systemClock } from '../../../src/adapters/system-clock.js';
import { providedNodeLeaseMachine, providedNodeStatusMachine } from '../../../src/actors/node/node-machines.js';
import type { LeaseObject, NodeObject } from '../../../src/domain/node-status/api-objects.js';
import type { NodeRegistrationSpec } from '../../../src/domain/node-status/initial-node.js';
import type { NodeStaticFacts } from '../../../src/domain/node-status/node-status.js';
import { startTestApiServer, type TestApiServer } from '../../apiserver/index.js';

const UPDATE_MS = 500;
const LEASE_SECONDS = 2;

const registration: NodeRegistrationSpec = {
  nodeName: 'it-node', hostname: 'it-node', operatingSystem: 'linux', architecture: 'amd64',
  nodeLabels: { 'node-role.kubernetes.io/worker': '' }, registerWithTaints: [], registerSchedulable: true, enableControllerAttachDetach: true,
};
const facts: NodeStaticFacts = {
  hostname: 'it-node', nodeIps: ['127.0.0.1'],
  capacity: { cpuMillis: 2000, memoryBytes: 4 * 2 ** 30, ephemeralStorageBytes: 50 * 2 ** 30, pods: 110 },
  allocatable: { cpuMillis: 2000, memoryBytes: 4 * 2 ** 30, ephemeralStorageBytes: 45 * 2 ** 30, pods: 110 },
  nodeInfo: { machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: 'k', osImage: 'o', containerRuntimeVersion: 'embedded://0.1.0', kubeletVersion: 'v1.33.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64' },
  kubeletPort: 10250,
  maxImages: 50,
};

let server: TestApiServer | undefined;
let root: AnyActorRef | undefined;
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
  const images = async () => [{ repoTags: ['busybox:1.36'], repoDigests: [], sizeBytes: 4_000_000 }];
  const parent = createMachine({
    invoke: [
      { id: 'nodeLease', systemId: 'nodeLease', src: providedNodeLeaseMachine({ clients, clock: systemClock, logger }), input: { nodeName: 'it-node', leaseDurationSeconds: LEASE_SECONDS, jitter: 0 } },
      { id: 'nodeStatus', systemId: 'nodeStatus', src: providedNodeStatusMachine({ clients, listImages: images, clock: systemClock, logger }), input: { registration, facts, jitter: 0, updateFrequencyMs: UPDATE_MS, startedAtMs: systemClock.now() } },
    ],
  });
  root = createActor(parent, { clock: systemClock });
  root.start();
  const status = root.getSnapshot().children.nodeStatus as AnyActorRef;
  const api = server;
  // Read back through the API, as any other client would see it.
  const node = () => clients.main.getNode('it-node').catch(() => undefined);
  const lease = () => clients.main.getLease('kube-node-lease', 'it-node').catch(() => undefined);
  return { api, status, node, lease };
}

const ready = (n: NodeObject | undefined) => n?.status?.conditions?.find((c) => c.type === 'Ready');
const renewMs = (l: LeaseObject | undefined) => (l?.spec.renewTime ? Date.parse(l.spec.renewTime) : 0);

describe('node status and lease against the API server', () => {
  it('registers the Node, turns it Ready, and keeps a Lease owned by it renewed', async () => {
    const { api, status, node, lease } = await startNode();
    status.send({ type: 'node.runtime.health', runtimeReady: true, networkReady: true, observedAtMs: systemClock.now() });
    await expect.poll(async () => ready(await node())?.status, { timeout: 5_000 }).toBe('True');
    const n = (await node())!;
    expect(n.metadata.labels).toMatchObject({ 'kubernetes.io/hostname': 'it-node', 'node-role.kubernetes.io/worker': '' });
    expect(n.status?.nodeInfo?.containerRuntimeVersion).toBe('embedded://0.1.0');
    expect(n.status?.images?.[0]?.names).toEqual(['busybox:1.36']);
    await expect.poll(async () => (await lease())?.metadata.ownerReferences, { timeout: 5_000 }).toEqual([{ apiVersion: 'v1', kind: 'Node', name: 'it-node', uid: n.metadata.uid }]);
    // The lease waited for the Node: its first write already carried the owner.
    const writes = api.requests.filter((r) => r.path.includes('/leases') || r.path.endsWith('/nodes'));
    expect(writes[0]?.path.endsWith('/nodes')).toBe(true);
    expect((await lease())!.spec).toMatchObject({ holderIdentity: 'it-node', leaseDurationSeconds: LEASE_SECONDS });
    const first = renewMs(await lease());
    await expect.poll(async () => renewMs(await lease()), { timeout: 3_000 }).toBeGreaterThan(first);
  });

  it('survives an API outage, and lease and status resume within a period of its end', async () => {
    const { api, status, node, lease } = await startNode();
    status.send({ type: 'node.runtime.health', runtimeReady: true, networkReady: true, observedAtMs: systemClock.now() });
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
