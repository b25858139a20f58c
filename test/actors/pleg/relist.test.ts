import { describe, expect, it } from 'vitest';
import { createActor, waitFor } from 'xstate';
import { relistDigest } from '../../../src/domain/pleg/relist.js';
import { createPlegActors } from '../../../src/actors/pleg/pleg-actors.js';
import { createRelister } from '../../../src/actors/pleg/relist.js';
import { KubeletError } from '../../../src/domain/errors.js';
import { FakeCri } from '../../fakes/fake-cri.js';

/** A clock that moves 5 ms every time it is read, so the relist's own duration is visible. */
function steppingClock(start: number) {
  let ms = start;
  return { now: () => { const t = ms; ms += 5; return t; } };
}

async function podWithContainer(cri: FakeCri, uid: string, name: string, start: boolean) {
  const labels = { 'io.kubernetes.pod.uid': uid, 'io.kubernetes.pod.name': name, 'io.kubernetes.pod.namespace': 'ns' };
  const sandboxId = await cri.runtime.runPodSandbox({ metadata: { name, namespace: 'ns', uid, attempt: 0 }, labels });
  const sandboxConfig = cri.sandboxes.get(sandboxId)!.config;
  const id = await cri.runtime.createContainer(sandboxId, { metadata: { name: 'app', attempt: 0 }, image: { image: 'nginx:1.27' }, labels: { ...labels, 'io.kubernetes.container.name': 'app' } }, sandboxConfig);
  if (start) await cri.runtime.startContainer(id);
  return { sandboxId, id };
}

describe('createRelister', () => {
  it('groups sandboxes and containers by pod uid, with their states, stamped and timed', async () => {
    const cri = new FakeCri();
    cri.addImage('nginx:1.27');
    const a = await podWithContainer(cri, 'uid-b', 'b', true);
    const b = await podWithContainer(cri, 'uid-a', 'a', false);
    // Not the kubelet's: no pod uid label.
    await cri.runtime.runPodSandbox({ metadata: { name: 'other', namespace: 'x', uid: 'x', attempt: 0 }, labels: {} });
    cri.failSandbox(b.sandboxId);

    const out = await createRelister(cri, steppingClock(1000))();
    expect(out.observedAtMs).toBe(1000);
    expect(out.durationMs).toBe(5);
    expect(out.pods).toEqual([
      { uid: 'uid-a', sandboxes: [{ id: b.sandboxId, state: 'notReady' }], containers: [{ id: b.id, name: 'app', state: 'created' }] },
      { uid: 'uid-b', sandboxes: [{ id: a.sandboxId, state: 'ready' }], containers: [{ id: a.id, name: 'app', state: 'running' }] },
    ]);
  });

  it('reuses the grouping while the CRI hands back the very same lists, and works it out again when not', async () => {
    const labels = { 'io.kubernetes.pod.uid': 'uid-a' };
    const sandboxes = [{ id: 's1', metadata: { name: 'a', namespace: 'ns', uid: 'uid-a', attempt: 0 }, state: 'SANDBOX_READY', created_at: '1', labels, annotations: {} }];
    let containers = [{ id: 'c1', pod_sandbox_id: 's1', metadata: { name: 'app', attempt: 0 }, state: 'CONTAINER_RUNNING', created_at: '2', labels, annotations: {} }];
    const cri = { runtime: { listPodSandbox: async () => sandboxes, listContainers: async () => containers } } as unknown as FakeCri;
    const relist = createRelister(cri, steppingClock(0));
    const first = await relist();
    const second = await relist();
    expect(second.pods).toBe(first.pods);
    expect(second.digest).toBe(first.digest);
    expect(second.observedAtMs).toBeGreaterThan(first.observedAtMs);

    containers = [{ ...containers[0]!, state: 'CONTAINER_EXITED' }];
    const third = await relist();
    expect(third.pods).not.toBe(first.pods);
    expect(third.digest).not.toBe(first.digest);
    expect(third.pods?.[0]?.containers).toEqual([{ id: 'c1', name: 'app', state: 'exited' }]);
  });

  it('lists only the sandboxes while the node has no pod, and the containers again once a sandbox is there', async () => {
    const labels = { 'io.kubernetes.pod.uid': 'uid-a' };
    let sandboxes: unknown[] = [];
    let containers: unknown[] = [];
    let containerLists = 0;
    const cri = { runtime: { listPodSandbox: async () => sandboxes, listContainers: async () => { containerLists += 1; return containers; } } } as unknown as FakeCri;
    const relist = createRelister(cri, steppingClock(0));
    await relist();
    expect(containerLists).toBe(1);
    expect((await relist()).pods).toEqual([]);
    expect((await relist()).pods).toEqual([]);
    expect(containerLists).toBe(1);
    sandboxes = [{ id: 's1', metadata: { name: 'a', namespace: 'ns', uid: 'uid-a', attempt: 0 }, state: 'SANDBOX_READY', created_at: '1', labels, annotations: {} }];
    containers = [{ id: 'c1', pod_sandbox_id: 's1', metadata: { name: 'app', attempt: 0 }, state: 'CONTAINER_RUNNING', created_at: '2', labels, annotations: {} }];
    expect((await relist()).pods).toEqual([{ uid: 'uid-a', sandboxes: [{ id: 's1', state: 'ready' }], containers: [{ id: 'c1', name: 'app', state: 'running' }] }]);
    expect(containerLists).toBe(2);
    await relist();
    expect(containerLists).toBe(3);
  });

  it('keeps listing containers that outlived their sandboxes until they are gone', async () => {
    const labels = { 'io.kubernetes.pod.uid': 'uid-a' };
    let containers: unknown[] = [{ id: 'c1', pod_sandbox_id: 'gone', metadata: { name: 'app', attempt: 0 }, state: 'CONTAINER_EXITED', created_at: '2', labels, annotations: {} }];
    let containerLists = 0;
    const cri = { runtime: { listPodSandbox: async () => [], listContainers: async () => { containerLists += 1; return containers; } } } as unknown as FakeCri;
    const relist = createRelister(cri, steppingClock(0));
    await relist();
    expect((await relist()).pods).toEqual([{ uid: 'uid-a', sandboxes: [], containers: [{ id: 'c1', name: 'app', state: 'exited' }] }]);
    expect(containerLists).toBe(2);
    containers = [];
    expect((await relist()).pods).toEqual([]);
    await relist();
    expect(containerLists).toBe(3);
  });

  it('fails as the CRI fails', async () => {
    const cri = new FakeCri();
    cri.failNext('listContainers', new KubeletError('KLT_ERR_CRI_UNAVAILABLE', 'down'));
    await expect(createRelister(cri, steppingClock(0))()).rejects.toMatchObject({ code: 'KLT_ERR_CRI_UNAVAILABLE' });
  });
});

describe('createPlegActors', () => {
  it('provides relist as a promise actor', async () => {
    const cri = new FakeCri();
    const actor = createActor(createPlegActors(cri, steppingClock(7)).relist, { input: { previousDigest: null } });
    actor.start();
    const snap = await waitFor(actor, (s) => s.status === 'done');
    expect(snap.output).toEqual({ observedAtMs: 7, durationMs: 5, pods: [], digest: relistDigest([]) });
  });

  it('answers unchanged, without the pods, when the runtime says what it said last time', async () => {
    const cri = new FakeCri();
    const actor = createActor(createPlegActors(cri, steppingClock(7)).relist, { input: { previousDigest: relistDigest([]) } });
    actor.start();
    const snap = await waitFor(actor, (s) => s.status === 'done');
    expect(snap.output).toEqual({ observedAtMs: 7, durationMs: 5, digest: relistDigest([]), unchanged: true });
  });
});
