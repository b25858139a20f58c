import { describe, expect, it } from 'vitest';
import { createActor, waitFor } from 'xstate';
import { relistDigest } from '../../../src/domain/pleg/relist.js';
import { createPlegActors } from '../../../src/actors/pleg/pleg-actors.js';
import { relistPods } from '../../../src/actors/pleg/relist.js';
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

describe('relistPods', () => {
  it('groups sandboxes and containers by pod uid, with their states, stamped and timed', async () => {
    const cri = new FakeCri();
    cri.addImage('nginx:1.27');
    const a = await podWithContainer(cri, 'uid-b', 'b', true);
    const b = await podWithContainer(cri, 'uid-a', 'a', false);
    // Not the kubelet's: no pod uid label.
    await cri.runtime.runPodSandbox({ metadata: { name: 'other', namespace: 'x', uid: 'x', attempt: 0 }, labels: {} });
    cri.failSandbox(b.sandboxId);

    const out = await relistPods(cri, steppingClock(1000));
    expect(out.observedAtMs).toBe(1000);
    expect(out.durationMs).toBe(5);
    expect(out.pods).toEqual([
      { uid: 'uid-a', sandboxes: [{ id: b.sandboxId, state: 'notReady' }], containers: [{ id: b.id, name: 'app', state: 'created' }] },
      { uid: 'uid-b', sandboxes: [{ id: a.sandboxId, state: 'ready' }], containers: [{ id: a.id, name: 'app', state: 'running' }] },
    ]);
  });

  it('fails as the CRI fails', async () => {
    const cri = new FakeCri();
    cri.failNext('listContainers', new KubeletError('KLT_ERR_CRI_UNAVAILABLE', 'down'));
    await expect(relistPods(cri, steppingClock(0))).rejects.toMatchObject({ code: 'KLT_ERR_CRI_UNAVAILABLE' });
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
