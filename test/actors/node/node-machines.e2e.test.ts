/**
 * The node status and lease machines with their real effects on the real control plane (the run's
 * lab, v1.26), through the kubelet's clients as system:node:<name>, so the Node authorizer and
 * NodeRestriction judge the Node and Lease it writes; on the wall clock with short periods (status
 * every 500 ms, a lease of 2 s renewed every 500 ms) so a run takes seconds. An outage, which the
 * real server cannot be made to have on demand, is in node-machines.integration.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AnyActorRef } from 'xstate';
import { heartbeatTimeoutMs } from '../../../src/adapters/apiserver/create-api-clients.js';
import { systemClock } from '../../../src/adapters/system-clock.js';
import type { LeaseObject, NodeObject } from '../../../src/domain/node-status/api-objects.js';
import { collectWatch, type CollectedWatch } from '../../apiserver/client-helpers.js';
import { kubeLab, kubeLabPart, labApi, type KubeLab } from '../../support/kube-lab.js';
import { labAdminConfig, labNodeClients } from '../../support/lab-clients.js';
import { describeNeeding } from '../../support/real-parts.js';
import { startNodeMachines } from './node-fixtures.js';

const UPDATE_MS = 500;
const LEASE_SECONDS = 2;
const NODE = 'kts-node-machines';
/** How long a wait for the server's next answer may take: a generous bound for a loaded 2-core machine. */
const WAIT_MS = 20_000;

describeNeeding(kubeLabPart(), 'node status and lease on the real control plane', () => {
  let lab: KubeLab;
  let dir: string;
  let root: AnyActorRef | undefined;
  let leases: CollectedWatch | undefined;

  beforeAll(async () => {
    lab = await kubeLab();
    dir = mkdtempSync(join(tmpdir(), 'kts-node-machines-'));
  }, 300_000);
  afterAll(async () => {
    root?.stop();
    leases?.abort();
    if (lab) {
      await labApi(lab, 'DELETE', `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${NODE}`);
      await labApi(lab, 'DELETE', `/api/v1/nodes/${NODE}`);
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const ready = (n: NodeObject | undefined) => n?.status?.conditions?.find((c) => c.type === 'Ready');
  const renewMs = (l: LeaseObject | undefined) => (l?.spec.renewTime ? Date.parse(l.spec.renewTime) : 0);

  it('registers the Node, turns it Ready, and keeps a Lease owned by it renewed', async () => {
    const clients = await labNodeClients(lab, NODE, dir, { qps: 50, burst: 100, heartbeatTimeoutMs: heartbeatTimeoutMs(UPDATE_MS, LEASE_SECONDS) });
    // Watched from before the kubelet starts: the Lease's first version is seen, however soon it changes.
    leases = await collectWatch(labAdminConfig(lab), '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', { fieldSelector: `metadata.name=${NODE}` });
    const started = startNodeMachines(clients, NODE, { updateMs: UPDATE_MS, leaseSeconds: LEASE_SECONDS });
    root = started.root;
    const node = () => clients.main.getNode(NODE).catch(() => undefined);
    const lease = () => clients.main.getLease('kube-node-lease', NODE).catch(() => undefined);

    started.status.send({ type: 'node.runtime.health', runtimeReady: true, networkReady: true, observedAtMs: systemClock.now() });

    started.status.send({ type: 'node.pleg.health', healthy: true, observedAtMs: systemClock.now() });
    await expect.poll(async () => ready(await node())?.status, { timeout: WAIT_MS }).toBe('True');
    const n = (await node())!;
    expect(n.metadata.labels).toMatchObject({ 'kubernetes.io/hostname': NODE, 'kubelet-ts.test/pool': 'it' });
    expect(n.status?.nodeInfo?.containerRuntimeVersion).toBe('embedded://0.1.0');
    // Created Ready with the runtime's first answer; the images come with the status update that follows at once.
    await expect.poll(async () => (await node())?.status?.images?.[0]?.names, { timeout: WAIT_MS }).toEqual(['busybox:1.36']);
    const owner = [{ apiVersion: 'v1', kind: 'Node', name: NODE, uid: n.metadata.uid }];
    await expect.poll(async () => (await lease())?.metadata.ownerReferences, { timeout: WAIT_MS }).toEqual(owner);
    // The lease waited for the Node: its first version already carried the owner. The watch sees it
    // on its own connection, which may come after the GET above on a busy machine: waited for.
    const watched = leases;
    await expect.poll(() => watched.events.length, { timeout: WAIT_MS }).toBeGreaterThan(0);
    expect(leases.events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { ownerReferences: owner } } });
    expect((await lease())!.spec).toMatchObject({ holderIdentity: NODE, leaseDurationSeconds: LEASE_SECONDS });
    const first = renewMs(await lease());
    await expect.poll(async () => renewMs(await lease()), { timeout: WAIT_MS }).toBeGreaterThan(first);
    clients.close();
  }, 6 * WAIT_MS);
});
