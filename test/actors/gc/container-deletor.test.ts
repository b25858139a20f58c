import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import pino from 'pino';
import { CONTAINER_DELETOR_BUFFER, createContainerDeletorActor, removeDeadContainers } from '../../../src/actors/gc/container-deletor.js';
import type { DeadContainersRemoveRequested } from '../../../src/machines/sync-loop.machine.js';
import { FakeCri } from '../../fakes/fake-cri.js';
import { settle } from '../../support/settle.js';

const IMAGE = 'kubelet-ts.local/busybox:1.0';
const logger = pino({ level: 'silent' });

/** A pod `uid` with `dead` exited instances of each named container, oldest first, and one running `app`. */
async function setup(uid: string, names: string[], dead: number) {
  let now = 1_000_000;
  const cri = new FakeCri({ clock: { now: () => (now += 1000) } });
  cri.addImage(IMAGE);
  const labels = { 'io.kubernetes.pod.uid': uid };
  const sandboxConfig = { metadata: { name: uid, uid, namespace: 'default', attempt: 0 }, labels };
  const sandbox = await cri.runtime.runPodSandbox(sandboxConfig);
  const ids: Record<string, string[]> = {};
  for (const name of names) {
    for (let i = 0; i < dead; i++) {
      const id = await cri.runtime.createContainer(sandbox, { metadata: { name, attempt: i }, image: { image: IMAGE }, labels: { ...labels, 'io.kubernetes.container.name': name } }, sandboxConfig);
      await cri.runtime.startContainer(id);
      cri.exitContainer(id, 1);
      (ids[name] ??= []).push(id);
    }
  }
  const running = await cri.runtime.createContainer(sandbox, { metadata: { name: 'app', attempt: dead }, image: { image: IMAGE }, labels: { ...labels, 'io.kubernetes.container.name': 'app' } }, sandboxConfig);
  await cri.runtime.startContainer(running);
  return { cri, ids, running };
}

const request = (podUid: string, containerId: string | null, keep: number): DeadContainersRemoveRequested => ({ type: 'pod.deadContainers.remove', podUid, containerId, keep });
const left = async (cri: FakeCri) => (await cri.runtime.listContainers()).map((c) => c.id).sort();

describe('removeDeadContainers', () => {
  it('removes the older dead instances of the container that died, keeping the newest', async () => {
    const { cri, ids, running } = await setup('u1', ['app', 'side'], 3);
    const removed = await removeDeadContainers({ cri, logger }, request('u1', ids.app![0]!, 1));
    expect(removed.sort()).toEqual([ids.app![0], ids.app![1]].sort());
    expect(await left(cri)).toEqual([ids.app![2], ...ids.side!, running].sort());
  });

  it('removes every dead container of the pod, and only that pod\'s, when none is named', async () => {
    const { cri, ids, running } = await setup('u1', ['app', 'side'], 2);
    const other = await setup('u2', ['app'], 1);
    expect(await removeDeadContainers({ cri, logger }, request('u1', null, 0))).toHaveLength(4);
    expect(await left(cri)).toEqual([running]);
    expect(ids.app).toHaveLength(2);
    expect(await removeDeadContainers({ cri: other.cri, logger }, request('u1', null, 0))).toEqual([]);
  });

  it('removes the containers a request names without reading the runtime, a container already gone being no error', async () => {
    const { cri, ids, running } = await setup('u1', ['app'], 2);
    let lists = 0;
    const list = cri.runtime.listContainers.bind(cri.runtime);
    cri.runtime.listContainers = async (filter) => {
      lists += 1;
      return list(filter);
    };
    await cri.runtime.removeContainer(ids.app![1]!);
    const removed = await removeDeadContainers({ cri, logger }, { ...request('u1', null, 0), containerIds: ids.app! });
    expect(removed).toEqual(ids.app);
    expect(lists).toBe(0);
    expect(await left(cri)).toEqual([running]);
  });

  it('goes on with the others when one removal fails', async () => {
    const { cri, running } = await setup('u1', ['app'], 3);
    cri.failNext('removeContainer');
    expect(await removeDeadContainers({ cri, logger }, request('u1', null, 0))).toHaveLength(2);
    expect((await left(cri)).filter((id) => id !== running)).toHaveLength(1);
  });
});

describe('the container deletor actor', () => {
  it('works through its requests one at a time and drops those beyond its buffer, as Go\'s channel does', async () => {
    const { cri } = await setup('u1', ['app'], 1);
    let lists = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    const list = cri.runtime.listContainers.bind(cri.runtime);
    cri.runtime.listContainers = async (filter) => {
      lists += 1;
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      // A simulated call length of one turn, so that two calls at once would overlap; not a wait.
      await new Promise((r) => setImmediate(r));
      inFlight -= 1;
      return list(filter);
    };
    const actor = createActor(createContainerDeletorActor({ cri, logger })).start();
    // One pod's request starts at once; of the other pods', the buffer's worth wait and the rest are dropped.
    const total = CONTAINER_DELETOR_BUFFER + 10;
    for (let i = 0; i < total; i++) actor.send(request(`u${i}`, null, 0));
    await expect.poll(() => lists).toBe(CONTAINER_DELETOR_BUFFER + 1);
    // One more turn: each list takes one, so a request wrongly kept would have been listed by now.
    await new Promise((r) => setImmediate(r));
    expect(lists).toBe(CONTAINER_DELETOR_BUFFER + 1);
    expect(maxInFlight).toBe(1);
    actor.stop();
  });

  it('removes the named containers of every pod a full node deletes at once (maxPods 110), none left to the GC', async () => {
    const { cri } = await setup('u0', [], 0);
    const pods = 110;
    const ids: string[] = [];
    const sandboxConfig = (uid: string) => ({ metadata: { name: uid, uid, namespace: 'default', attempt: 0 }, labels: { 'io.kubernetes.pod.uid': uid } });
    for (let i = 0; i < pods; i++) {
      const config = sandboxConfig(`p${i}`);
      const id = await cri.runtime.createContainer(await cri.runtime.runPodSandbox(config), { metadata: { name: 'app', attempt: 0 }, image: { image: IMAGE }, labels: config.labels }, config);
      ids.push(id);
    }
    const actor = createActor(createContainerDeletorActor({ cri, logger })).start();
    ids.forEach((id, i) => actor.send({ ...request(`p${i}`, null, 0), containerIds: [id] }));
    await expect.poll(async () => (await cri.runtime.listContainers()).filter((c) => ids.includes(c.id)).length).toBe(0);
    actor.stop();
  });

  it('coalesces what waits per pod: a request for all of a pod\'s dead containers covers those for one', async () => {
    const { cri } = await setup('u1', ['app'], 1);
    const listed: string[] = [];
    const list = cri.runtime.listContainers.bind(cri.runtime);
    cri.runtime.listContainers = async (filter) => {
      listed.push(filter?.label_selector?.['io.kubernetes.pod.uid'] ?? '');
      // A simulated call length of one turn, so that two calls at once would overlap; not a wait.
      await new Promise((r) => setImmediate(r));
      return list(filter);
    };
    const actor = createActor(createContainerDeletorActor({ cri, logger })).start();
    actor.send(request('busy', null, 0)); // taken at once: the rest wait behind it
    actor.send(request('u2', 'c1', 1));
    actor.send(request('u2', 'c1', 1));
    actor.send(request('u3', 'c1', 1));
    actor.send(request('u3', null, 0));
    actor.send(request('u3', 'c2', 1));
    actor.send(request('u4', 'c1', 1));
    actor.send(request('u4', 'c2', 1));
    // The queue is first in, first out: a request wrongly kept would be listed before this last one.
    actor.send(request('last', null, 0));
    await expect.poll(() => listed.at(-1)).toBe('last');
    expect(listed).toEqual(['busy', 'u2', 'u3', 'u4', 'u4', 'last']);
    actor.stop();
  });

  it('stops working through its queue once stopped', async () => {
    const { cri } = await setup('u1', ['app'], 1);
    const answers: Promise<unknown>[] = [];
    const list = cri.runtime.listContainers.bind(cri.runtime);
    cri.runtime.listContainers = (filter) => {
      // A simulated call length of one turn; not a wait.
      const answer = new Promise<void>((r) => setImmediate(r)).then(() => list(filter));
      answers.push(answer);
      return answer;
    };
    const actor = createActor(createContainerDeletorActor({ cri, logger })).start();
    for (let i = 0; i < 5; i++) actor.send(request(`u${i}`, null, 0));
    actor.stop();
    // Once the request in hand is answered, the fake runtime's removals and the worker's next step
    // are promise callbacks, all run within one turn of the event loop: a wrong next list shows by then.
    await answers[0];
    await settle();
    expect(answers).toHaveLength(1);
  });
});
