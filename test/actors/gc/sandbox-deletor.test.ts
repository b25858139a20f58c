import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import pino from 'pino';
import { createSandboxDeletorActor, removeDeadSandboxes, SANDBOX_DELETOR_BUFFER } from '../../../src/actors/gc/sandbox-deletor.js';
import type { PodSandboxesRemoveRequested } from '../../../src/machines/sync-loop.machine.js';
import { FakeCri } from '../../fakes/fake-cri.js';

const IMAGE = 'kubelet-ts.local/busybox:1.0';
const logger = pino({ level: 'silent' });

/** A pod `uid` with `stopped` stopped sandboxes (oldest first), the first holding an exited container, and one ready sandbox last. */
async function setup(uid: string, stopped: number, cri = newCri()) {
  const labels = { 'io.kubernetes.pod.uid': uid };
  const config = { metadata: { name: uid, uid, namespace: 'default', attempt: 0 }, labels };
  const ids: string[] = [];
  for (let i = 0; i < stopped; i++) {
    const id = await cri.runtime.runPodSandbox({ ...config, metadata: { ...config.metadata, attempt: i } });
    if (i === 0) {
      const c = await cri.runtime.createContainer(id, { metadata: { name: 'app', attempt: 0 }, image: { image: IMAGE }, labels }, config);
      await cri.runtime.startContainer(c);
      cri.exitContainer(c, 0);
    }
    await cri.runtime.stopPodSandbox(id);
    ids.push(id);
  }
  const ready = await cri.runtime.runPodSandbox({ ...config, metadata: { ...config.metadata, attempt: stopped } });
  return { cri, ids, ready };
}

function newCri() {
  let now = 1_000_000;
  const cri = new FakeCri({ clock: { now: () => (now += 1000) } });
  cri.addImage(IMAGE);
  return cri;
}

const request = (podUid: string, keep: number): PodSandboxesRemoveRequested => ({ type: 'pod.sandboxes.remove', podUid, keep });
const left = async (cri: FakeCri) => (await cri.runtime.listPodSandbox()).map((s) => s.id).sort();

describe('removeDeadSandboxes', () => {
  it('removes the pod\'s stopped sandboxes no container names, never the ready one', async () => {
    const { cri, ids, ready } = await setup('u1', 3);
    const other = await setup('u2', 1, cri);
    expect(await removeDeadSandboxes({ cri, logger }, request('u1', 0))).toEqual([ids[1], ids[2]]);
    expect(await left(cri)).toEqual([ids[0], ready, ...other.ids, other.ready].sort());
  });

  it('keeps the newest `keep` sandboxes', async () => {
    const cri = newCri();
    const labels = { 'io.kubernetes.pod.uid': 'u1' };
    const config = { metadata: { name: 'u1', uid: 'u1', namespace: 'default', attempt: 0 }, labels };
    const ids = [await cri.runtime.runPodSandbox(config), await cri.runtime.runPodSandbox(config)];
    for (const id of ids) await cri.runtime.stopPodSandbox(id);
    expect(await removeDeadSandboxes({ cri, logger }, request('u1', 1))).toEqual([ids[0]]);
    expect(await left(cri)).toEqual([ids[1]]);
  });

  it('goes on with the others when one removal fails', async () => {
    const { cri, ids } = await setup('u1', 3);
    cri.failNext('removePodSandbox');
    expect(await removeDeadSandboxes({ cri, logger }, request('u1', 0))).toEqual([ids[2]]);
  });
});

describe('the sandbox deletor actor', () => {
  it('works through one request per pod at a time and drops those beyond its buffer, as Go\'s channel does', async () => {
    const { cri } = await setup('u1', 1);
    const listed: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const list = cri.runtime.listPodSandbox.bind(cri.runtime);
    cri.runtime.listPodSandbox = async (filter) => {
      listed.push(filter?.label_selector?.['io.kubernetes.pod.uid'] ?? '');
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      // A simulated call length of one turn, so that two calls at once would overlap; not a wait.
      await new Promise((r) => setImmediate(r));
      inFlight -= 1;
      return list(filter);
    };
    const actor = createActor(createSandboxDeletorActor({ cri, logger })).start();
    actor.send(request('busy', 0)); // taken at once: the rest wait behind it
    actor.send(request('p0', 1));
    actor.send(request('p0', 0));
    for (let i = 1; i < SANDBOX_DELETOR_BUFFER + 5; i++) actor.send(request(`p${i}`, 0));
    await expect.poll(() => listed.length).toBe(SANDBOX_DELETOR_BUFFER + 1);
    // One more turn: each list takes one, so a request wrongly kept would have been listed by now.
    await new Promise((r) => setImmediate(r));
    expect(listed).toEqual(['busy', ...Array.from({ length: SANDBOX_DELETOR_BUFFER }, (_, i) => `p${i}`)]);
    expect(maxInFlight).toBe(1);
    actor.stop();
  });

  it('removes what a pod\'s request picks', async () => {
    const { cri, ids, ready } = await setup('u1', 2);
    const actor = createActor(createSandboxDeletorActor({ cri, logger })).start();
    actor.send(request('u1', 0));
    await expect.poll(() => left(cri)).toEqual([ids[0], ready].sort());
    actor.stop();
  });
});
