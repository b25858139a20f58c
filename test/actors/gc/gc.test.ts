import { describe, expect, it } from 'vitest';
import { collectContainers, type ContainerGcPolicy } from '../../../src/actors/gc/container-gc.js';
import { collectImages } from '../../../src/actors/gc/image-gc.js';
import { startGarbageCollection } from '../../../src/actors/gc/gc-loops.js';
import { createRootLogger } from '../../../src/log.js';
import { SimulatedClock } from 'xstate';
import { FakeCri } from '../../fakes/fake-cri.js';

const IMAGE = 'kubelet-ts.local/busybox:1.0';

function setup() {
  let now = 1_000_000;
  const clock = { now: () => now };
  const cri = new FakeCri({ clock });
  cri.addImage(IMAGE);
  const advance = (ms: number) => (now += ms);
  /** A sandbox for pod `uid`, and `dead` exited instances of container `name` in it, oldest first. */
  async function pod(uid: string, name: string, dead: number, opts: { running?: boolean } = {}) {
    const labels = { 'io.kubernetes.pod.uid': uid };
    const sandboxConfig = { metadata: { name: uid, uid, namespace: 'default', attempt: 0 }, labels };
    const sandbox = await cri.runtime.runPodSandbox(sandboxConfig);
    const ids: string[] = [];
    for (let i = 0; i < dead + (opts.running ? 1 : 0); i++) {
      advance(1000);
      const id = await cri.runtime.createContainer(sandbox, { metadata: { name, attempt: i }, image: { image: IMAGE }, labels }, sandboxConfig);
      await cri.runtime.startContainer(id);
      if (i < dead) cri.exitContainer(id, 1);
      ids.push(id);
    }
    return { sandbox, ids };
  }
  return { cri, pod, advance, clock };
}

const policy: ContainerGcPolicy = { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 };
const dirs = { podLogsDir: '/logs', listDirs: async () => [] as string[], removeDir: async () => {} };

describe('collectContainers', () => {
  it('keeps the newest dead instance of each container of a live pod and removes the older ones', async () => {
    const { cri, pod, clock } = setup();
    const { ids } = await pod('u1', 'app', 3, { running: true });
    const r = await collectContainers({ cri, policy, nowMs: clock.now(), activePods: () => new Set(['u1']), ...dirs });
    expect(r.removedContainers.sort()).toEqual([ids[0], ids[1]].sort());
    expect((await cri.runtime.listContainers()).map((c) => c.id).sort()).toEqual([ids[2], ids[3]].sort());
  });

  it('removes every dead container and the sandbox of a pod gone from all sources, but only once the sources were seen', async () => {
    const { cri, pod, clock } = setup();
    const { sandbox } = await pod('gone', 'app', 2);
    await cri.runtime.stopPodSandbox(sandbox);
    const before = await collectContainers({ cri, policy, nowMs: clock.now(), activePods: () => null, ...dirs });
    expect(before.removedContainers).toHaveLength(1);
    expect(before.removedSandboxes).toEqual([]);
    const after = await collectContainers({ cri, policy, nowMs: clock.now(), activePods: () => new Set(), ...dirs });
    expect(after.removedContainers).toHaveLength(1);
    expect(after.removedSandboxes).toEqual([sandbox]);
  });

  it('leaves dead containers younger than the minimum age', async () => {
    const { cri, pod, clock } = setup();
    await pod('u1', 'app', 3);
    const r = await collectContainers({ cri, policy: { ...policy, minAgeMs: 60_000 }, nowMs: clock.now(), activePods: () => new Set(['u1']), ...dirs });
    expect(r.removedContainers).toEqual([]);
  });

  it('enforces the global cap on dead containers, oldest first', async () => {
    const { cri, pod, clock } = setup();
    const a = await pod('a', 'app', 1);
    const b = await pod('b', 'app', 1);
    const c = await pod('c', 'app', 1);
    const r = await collectContainers({ cri, policy: { ...policy, maxContainers: 1 }, nowMs: clock.now(), activePods: () => new Set(['a', 'b', 'c']), ...dirs });
    expect(r.removedContainers.sort()).toEqual([a.ids[0], b.ids[0]].sort());
    expect((await cri.runtime.listContainers()).map((x) => x.id)).toEqual([c.ids[0]]);
  });

  it('removes the log directories of pods that are gone and have nothing left in the runtime', async () => {
    const { cri, pod, clock } = setup();
    await pod('live', 'app', 0, { running: true });
    const removed: string[] = [];
    const r = await collectContainers({
      cri, policy, nowMs: clock.now(), activePods: () => new Set(['live']), podLogsDir: '/logs',
      listDirs: async () => ['default_web_live', 'default_old_gone', 'junk'],
      removeDir: async (p) => void removed.push(p),
    });
    expect(r.removedLogDirs).toEqual(['default_old_gone']);
    expect(removed).toEqual(['/logs/default_old_gone']);
  });
});

describe('collectImages', () => {
  const imagePolicy = { highThresholdPercent: 85, lowThresholdPercent: 80, minAgeMs: 120_000, maxAgeMs: 0 };

  async function images() {
    const env = setup();
    env.cri.addImage('unused/old:1', { size: String(30 * 2 ** 20) });
    env.cri.addImage('unused/new:1', { size: String(30 * 2 ** 20) });
    await env.pod('u1', 'app', 0, { running: true }); // uses IMAGE
    return env;
  }

  it('removes nothing below the high threshold', async () => {
    const { cri, clock } = await images();
    const r = await collectImages({ cri, policy: imagePolicy, nowMs: clock.now() + 600_000, records: new Map(), fsUsage: async () => ({ capacityBytes: 100, availableBytes: 50 }) });
    expect(r).toMatchObject({ usagePercent: 50, removed: [] });
  });

  it('above the high threshold removes unused images only, and none younger than the minimum age', async () => {
    const { cri, clock } = await images();
    const records = new Map();
    const fsUsage = async () => ({ capacityBytes: 100 * 2 ** 20, availableBytes: 10 * 2 ** 20 });
    const first = await collectImages({ cri, policy: imagePolicy, nowMs: clock.now(), records, fsUsage });
    expect(first.removed).toEqual([]);
    const later = await collectImages({ cri, policy: imagePolicy, nowMs: clock.now() + 200_000, records, fsUsage });
    expect(later.usagePercent).toBe(90);
    expect(later.removed).toHaveLength(1);
    const left = (await cri.images.listImages()).flatMap((i) => i.repo_tags);
    expect(left).toContain(IMAGE);
  });
});

describe('startGarbageCollection collectors (the eviction manager node-level reclaim)', () => {
  it('deleteUnusedImages removes every unused image old enough, whatever the disk usage', async () => {
    const env = setup();
    env.cri.addImage('unused/a:1', { size: '10' });
    await env.pod('u1', 'app', 0, { running: true });
    const clock = new SimulatedClock();
    const logger = createRootLogger({ destination: { write: () => {} } });
    const { stop, collectors } = startGarbageCollection({
      clock,
      logger,
      containers: { cri: env.cri, policy, activePods: () => new Set(['u1']), ...dirs },
      images: { cri: env.cri, policy: { highThresholdPercent: 85, lowThresholdPercent: 80, minAgeMs: 0, maxAgeMs: 0 }, fsUsage: async () => ({ capacityBytes: 100, availableBytes: 99 }) },
    });
    await collectors.deleteAllUnusedContainers();
    await collectors.deleteUnusedImages();
    stop();
    expect((await env.cri.images.listImages()).flatMap((i) => i.repo_tags)).toEqual([IMAGE]);
  });
});
