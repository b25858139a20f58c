import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createDraClaimManager } from '../../../src/adapters/dra/dra-claim-manager.js';
import { decodeClaimCheckpoint } from '../../../src/domain/dra/claim-checkpoint.js';
import type { ResourceClaim } from '../../../src/domain/dra/resource-claim.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import type { ClaimCheckpointStore } from '../../../src/ports/dra-claims.js';
import type { DraClaim, DraPluginClient, DraPluginClients, DraPrepareResult } from '../../../src/ports/dra-plugins.js';

const DRIVER = 'gpu.example.com';

function claim(name: string, uid: string, reservedFor: string[]): ResourceClaim {
  return {
    metadata: { name, namespace: 'ml', uid },
    status: {
      allocation: { devices: { results: [{ request: 'gpu', driver: DRIVER, pool: 'node-1', device: `${name}-dev` }] } },
      reservedFor: reservedFor.map((p) => ({ resource: 'pods', name: p, uid: p })),
    },
  };
}

function pod(uid: string, claimName = 'shared'): Pod {
  return {
    metadata: { name: uid, namespace: 'ml', uid },
    spec: {
      resourceClaims: [{ name: 'accel', resourceClaimName: claimName }],
      containers: [{ name: 'uses', image: 'i', resources: { claims: [{ name: 'accel' }] } }, { name: 'plain', image: 'i' }],
    },
  };
}

/** A driver that prepares each claim as one device with one CDI id, and remembers every call. */
function world(claims: ResourceClaim[], answer?: (c: DraClaim) => DraPrepareResult) {
  const calls: string[] = [];
  /** What NodeUnprepareResources waits for before it answers. */
  let held: Promise<void> = Promise.resolve();
  const files: string[] = [];
  const client: DraPluginClient = {
    async nodePrepareResources(asked) {
      calls.push(`prepare ${asked.map((c) => c.name).join(',')}`);
      return new Map(asked.map((c) => [c.uid, answer?.(c) ?? { devices: [{ poolName: 'node-1', deviceName: `${c.name}-dev`, requestNames: ['gpu'], cdiDeviceIds: [`${DRIVER}/gpu=${c.name}`] }] }]));
    },
    async nodeUnprepareResources(asked) {
      calls.push(`unprepare ${asked.map((c) => c.name).join(',')}`);
      await held;
      return new Map(asked.map((c) => [c.uid, { error: '' }]));
    },
  };
  const registered = new Set([DRIVER]);
  const plugins: DraPluginClients = {
    get(driver) {
      if (!registered.has(driver)) throw Object.assign(new Error(`DRA driver ${driver} is not registered`), { code: 'KLT_ERR_DRA_PLUGIN' });
      return client;
    },
    close() {},
  };
  const checkpoint: ClaimCheckpointStore = {
    read: async () => files.at(-1),
    write: async (text) => void files.push(text),
  };
  const getClaim = async (namespace: string, name: string) => {
    const found = claims.find((c) => c.metadata.namespace === namespace && c.metadata.name === name);
    if (!found) throw new Error(`resourceclaims.resource.k8s.io "${name}" not found`);
    return found;
  };
  const start = () => createDraClaimManager({ getClaim, plugins, checkpoint, logger: pino({ level: 'silent' }) });
  const saved = () => {
    const decoded = decodeClaimCheckpoint(files.at(-1) ?? '');
    return decoded.ok ? decoded.claims.map((c) => [c.claimName, c.podUids]) : decoded.error;
  };
  return { calls, files, registered, start, saved, holdUnprepare: (until: Promise<void>) => { held = until; } };
}

describe('the DRA claim manager', () => {
  it('prepares a claim shared by two pods once, gives its CDI ids to the containers using it, and unprepares it with the last pod', async () => {
    const w = world([claim('shared', 'c-1', ['pod-a', 'pod-b'])]);
    const manager = await w.start();
    await manager.prepare(pod('pod-a'));
    await manager.prepare(pod('pod-b'));
    expect(w.calls).toEqual(['prepare shared']);
    expect(w.saved()).toEqual([['shared', ['pod-a', 'pod-b']]]);
    const [uses, plain] = pod('pod-b').spec.containers;
    expect(manager.cdiDevices(pod('pod-b'), uses!)).toEqual([`${DRIVER}/gpu=shared`]);
    expect(manager.cdiDevices(pod('pod-b'), plain!)).toEqual([]);

    await manager.unprepare(pod('pod-a'));
    expect(w.calls).toEqual(['prepare shared']);
    expect(w.saved()).toEqual([['shared', ['pod-b']]]);
    await manager.unprepare(pod('pod-b'));
    expect(w.calls).toEqual(['prepare shared', 'unprepare shared']);
    expect(w.saved()).toEqual([]);
    // Idempotent: unpreparing a pod whose claims are gone asks no driver.
    await manager.unprepare(pod('pod-b'));
    expect(w.calls).toHaveLength(2);
  });

  it('reconciles: unprepares the claims of pods that no longer run, a shared claim only with its last pod, and tries a failed unprepare again', async () => {
    const w = world([claim('shared', 'c-1', ['pod-a', 'pod-b']), claim('own', 'c-2', ['pod-c'])]);
    const first = await w.start();
    for (const uid of ['pod-a', 'pod-b']) await first.prepare(pod(uid));
    await first.prepare(pod('pod-c', 'own'));
    // Restarted with pod-a and pod-c deleted meanwhile: only pod-b may still run.
    const manager = await w.start();
    expect(await manager.reconcile(new Set(['pod-b']))).toBe(2);
    expect(w.calls).toEqual(['prepare shared', 'prepare own', 'unprepare own']);
    expect(w.saved()).toEqual([['shared', ['pod-b']]]);
    // Nothing more to do while pod-b runs.
    expect(await manager.reconcile(new Set(['pod-b']))).toBe(0);
    expect(w.calls).toHaveLength(3);

    w.registered.clear();
    expect(await manager.reconcile(new Set())).toBe(0);
    expect(w.saved()).toEqual([['shared', ['pod-b']]]);
    w.registered.add(DRIVER);
    expect(await manager.reconcile(new Set())).toBe(1);
    expect(w.calls.at(-1)).toBe('unprepare shared');
    expect(w.saved()).toEqual([]);
  });

  it('a pod joining a claim while it is being unprepared has it prepared again once the unprepare is done', async () => {
    let release: () => void = () => undefined;
    const w = world([claim('shared', 'c-1', ['pod-a', 'pod-b'])]);
    const manager = await w.start();
    await manager.prepare(pod('pod-a'));
    w.holdUnprepare(new Promise<void>((done) => { release = done; }));
    const leaving = manager.unprepare(pod('pod-a'));
    const joining = manager.prepare(pod('pod-b'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(w.calls).toEqual(['prepare shared', 'unprepare shared']);
    release();
    await Promise.all([leaving, joining]);
    expect(w.calls).toEqual(['prepare shared', 'unprepare shared', 'prepare shared']);
    expect(manager.cdiDevices(pod('pod-b'), pod('pod-b').spec.containers[0]!)).toEqual([`${DRIVER}/gpu=shared`]);
    expect(w.saved()).toEqual([['shared', ['pod-b']]]);
  });

  it('prepares a shared claim once when two pods start together, the second waiting for the first\'s call', async () => {
    const w = world([claim('shared', 'c-1', ['pod-a', 'pod-b'])]);
    const manager = await w.start();
    await Promise.all([manager.prepare(pod('pod-a')), manager.prepare(pod('pod-b'))]);
    expect(w.calls).toEqual(['prepare shared']);
    expect(manager.cdiDevices(pod('pod-b'), pod('pod-b').spec.containers[0]!)).toEqual([`${DRIVER}/gpu=shared`]);
    expect(w.saved()).toEqual([['shared', ['pod-a', 'pod-b']]]);
  });

  it('after a restart, keeps the claims it checkpointed and prepares them again at the next sync', async () => {
    const w = world([claim('shared', 'c-1', ['pod-a'])]);
    await (await w.start()).prepare(pod('pod-a'));
    const restarted = await w.start();
    expect(restarted.cdiDevices(pod('pod-a'), pod('pod-a').spec.containers[0]!)).toEqual([`${DRIVER}/gpu=shared`]);
    await restarted.prepare(pod('pod-a'));
    expect(w.calls).toEqual(['prepare shared', 'prepare shared']);
    await restarted.unprepare(pod('pod-a'));
    expect(w.calls.at(-1)).toBe('unprepare shared');
  });

  it('refuses a claim not reserved for the pod, or whose driver is not registered, leaving nothing behind', async () => {
    const w = world([claim('shared', 'c-1', ['pod-b'])]);
    const manager = await w.start();
    await expect(manager.prepare(pod('pod-a'))).rejects.toMatchObject({ code: 'KLT_ERR_DRA_CLAIM', message: 'pod pod-a (pod-a) is not allowed to use ResourceClaim shared (c-1)' });
    await expect(manager.prepare(pod('pod-a', 'missing'))).rejects.toMatchObject({ message: 'fetch ResourceClaim missing: resourceclaims.resource.k8s.io "missing" not found' });
    w.registered.clear();
    await expect(manager.prepare(pod('pod-b'))).rejects.toMatchObject({ message: `DRA driver ${DRIVER} is not registered` });
    expect(w.calls).toEqual([]);
    expect(w.files).toEqual([]);
  });

  it('fails with the driver\'s own error for a claim, as Go words it, and prepares it at the next try', async () => {
    let fail = true;
    const w = world([claim('shared', 'c-1', ['pod-a'])], (c) => (fail ? { error: 'no such GPU' } : { devices: [{ poolName: 'p', deviceName: 'd', requestNames: [], cdiDeviceIds: [`${DRIVER}/gpu=${c.name}`] }] }));
    const manager = await w.start();
    await expect(manager.prepare(pod('pod-a'))).rejects.toMatchObject({ code: 'KLT_ERR_DRA_CLAIM', message: 'NodePrepareResources failed for ResourceClaim shared: no such GPU' });
    // Entered and checkpointed before the call, so an unprepare would still reach the driver.
    expect(w.saved()).toEqual([['shared', ['pod-a']]]);
    fail = false;
    await manager.prepare(pod('pod-a'));
    expect(w.calls).toEqual(['prepare shared', 'prepare shared']);
    expect(manager.cdiDevices(pod('pod-a'), pod('pod-a').spec.containers[0]!)).toEqual([`${DRIVER}/gpu=shared`]);
  });
});
