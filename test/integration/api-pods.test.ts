/**
 * The pod side of cluster mode through faults only the test API server commits on demand: a
 * dropped watch and an outage (it stops listening), with the apiserver pod source and the status
 * manager wired as the supervisor wires them (`wire()`). Everything else the pod side does (pods
 * delivered, statuses patched, graceful deletion, mirror pods, events) is tested on the real
 * control plane in api-pods.e2e.test.ts.
 */
import '../apiserver/node20-compat.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor as xstateWaitFor } from 'xstate';
import { createApiClients } from '../../src/adapters/apiserver/create-api-clients.js';
import { systemClock } from '../../src/adapters/system-clock.js';
import type { Pod } from '../../src/domain/pod/types.js';
import type { ApiClients } from '../../src/ports/apiserver.js';
import { clientsFor, type Clients } from '../apiserver/client-helpers.js';
import { startTestApiServer, type TestApiServer } from '../apiserver/index.js';
import { runningStatus, waitFor, wirePodSide, type PodSideOptions } from '../support/pod-side.js';

const logger = pino({ level: 'silent' });
const NODE = 'node-a';

let server: TestApiServer;
let dir: string;
let api: ApiClients;
let kubectl: Clients;
const stops: (() => void)[] = [];

beforeEach(async () => {
  server = await startTestApiServer();
  dir = mkdtempSync(join(tmpdir(), 'kubelet-ts-api-pods-'));
  api = createApiClients({
    kubeconfigPath: server.kubeconfigPath(dir), qps: 0, burst: 0, eventQps: 0, eventBurst: 0,
    heartbeatTimeoutMs: 10_000, clock: systemClock, logger,
  });
  kubectl = clientsFor(server);
});

afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  api.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function readPod(name: string, namespace = 'default'): Promise<Pod | null> {
  try {
    return (await api.main.getPod(namespace, name)) as unknown as Pod;
  } catch {
    return null;
  }
}

const wire = (opts: PodSideOptions = {}) => wirePodSide(api, NODE, opts, stops);

const podBody = (name: string, nodeName: string) => ({
  metadata: { name, namespace: 'default' },
  spec: { nodeName, containers: [{ name: 'c', image: 'busybox:1.36' }] },
});

describe('cluster mode, pod side, through the test API server\'s faults', () => {
  it('picks up a pod created while the watch was dropped', async () => {
    const k = wire();
    await kubectl.core.createNamespacedPod({ namespace: 'default', body: podBody('first', NODE) });
    await waitFor('first', () => (k.lastPods().length === 1 ? true : undefined));
    server.faults.closeWatches();
    await kubectl.core.createNamespacedPod({ namespace: 'default', body: podBody('second', NODE) });
    const pods = await waitFor('second', () => (k.lastPods().length === 2 ? k.lastPods() : undefined));
    expect(pods.map((p) => p.metadata.name)).toEqual(['first', 'second']);
  });

  it('rides out an outage: pods kept, a pod created meanwhile picked up, the status sent at a resync', async () => {
    const k = wire({ syncPeriodMs: 500 });
    const created = await kubectl.core.createNamespacedPod({ namespace: 'default', body: podBody('before', NODE) });
    await waitFor('before', () => (k.lastPods().length === 1 ? true : undefined));
    await server.faults.stopListening();
    const effectsBefore = k.manager.getSnapshot().context.effectCount;
    k.manager.send({ type: 'pod.status.updated', podUid: created.metadata!.uid!, status: runningStatus() });
    server.store.create('pods', podBody('during', NODE) as never);
    // During the outage the status patch is tried, fails, and is tried again at a resync (a second
    // effect); the kubelet, cut off, has not seen the pod created meanwhile.
    await xstateWaitFor(k.manager, (s) => s.context.effectCount >= effectsBefore + 2, { timeout: 10_000 });
    expect(k.lastPods().map((p) => p.metadata.name)).toEqual(['before']);
    await server.faults.resumeListening();
    const pods = await waitFor('during', () => (k.lastPods().length === 2 ? k.lastPods() : undefined), 10_000);
    expect(pods.map((p) => p.metadata.name)).toEqual(['before', 'during']);
    await waitFor('the status sent', async () => ((await readPod('before'))?.status?.phase === 'Running' ? true : undefined), 5_000);
  }, 20_000);
});
