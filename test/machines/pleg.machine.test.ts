import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise, SimulatedClock, type AnyActorRef } from 'xstate';
import type { RelistInput, RelistOutput, RelistPod } from '../../src/domain/pleg/relist.js';
import { isPlegHealthy } from '../../src/domain/pleg/health.js';
import { PLEG_CHANNEL_CAPACITY, plegMachine, PLEG_EFFECTS, type PlegContext, type PlegEventsEvent } from '../../src/machines/pleg.machine.js';
import { settle } from '../support/settle.js';

const flush = () => settle(5);

/** A parent invoking the PLEG; each relist answers the current `world` (or throws while `failing`). */
function harness(relistPeriodMs?: number) {
  const clock = new SimulatedClock();
  clock.set(1_000_000);
  const world: { pods: RelistPod[]; failing: boolean } = { pods: [], failing: false };
  const relists: number[] = [];
  const received: PlegEventsEvent[] = [];
  const pleg = plegMachine.provide({
    actors: {
      relist: fromPromise<RelistOutput, RelistInput>(async () => {
        relists.push(clock.now());
        await Promise.resolve(); // the first relist starts with the actor: let the test set the world
        if (world.failing) throw new Error('runtime down');
        return { observedAtMs: clock.now(), durationMs: 3, pods: structuredClone(world.pods) };
      }),
    },
  });
  const parent = createMachine({
    invoke: { id: 'pleg', systemId: 'pleg', src: pleg, input: relistPeriodMs === undefined ? {} : { relistPeriodMs } },
    on: { 'pleg.events': { actions: ({ event }) => { received.push(event as unknown as PlegEventsEvent); } } },
  });
  const root = createActor(parent, { clock });
  root.start();
  const ref = () => root.system.get('pleg') as AnyActorRef;
  const context = () => ref().getSnapshot().context as PlegContext;
  const advance = async (ms: number) => { clock.increment(ms); await flush(); };
  return { clock, world, relists, received, context, advance, ref };
}

const running = (uid: string, id: string): RelistPod => ({ uid, sandboxes: [{ id: `sb-${uid}`, state: 'ready' }], containers: [{ id, name: 'web', state: 'running' }] });

describe('plegMachine', () => {
  it('exports exactly its effectful actor srcs', () => {
    expect(PLEG_EFFECTS).toEqual(['relist']);
  });

  it('keeps its pods and emits nothing when a relist answers unchanged, and hands back the digest', async () => {
    const clock = new SimulatedClock();
    const inputs: unknown[] = [];
    const answers: RelistOutput[] = [
      { observedAtMs: 1, pods: [running('u1', 'c1')], digest: 'd1' },
      { observedAtMs: 2, digest: 'd1', unchanged: true },
    ];
    const received: PlegEventsEvent[] = [];
    const pleg = plegMachine.provide({
      actors: { relist: fromPromise<RelistOutput, RelistInput>(async ({ input }) => { inputs.push(input); return answers[Math.min(inputs.length - 1, 1)]!; }) },
    });
    const parent = createMachine({
      invoke: { id: 'pleg', systemId: 'pleg', src: pleg, input: {} },
      on: { 'pleg.events': { actions: ({ event }) => { received.push(event as unknown as PlegEventsEvent); } } },
    });
    const root = createActor(parent, { clock });
    root.start();
    await flush();
    clock.increment(1000);
    await flush();
    const ctx = (root.system.get('pleg') as AnyActorRef).getSnapshot().context as PlegContext;
    expect(inputs).toEqual([{ previousDigest: null }, { previousDigest: 'd1' }]);
    expect(ctx.pods).toEqual([running('u1', 'c1')]);
    expect(ctx.lastRelistAtMs).toBe(2);
    expect(received).toHaveLength(1);
  });

  it('relists every second (default period) after the previous relist', async () => {
    const h = harness();
    await flush();
    expect(h.relists).toEqual([1_000_000]);
    expect(h.ref().getSnapshot().value).toBe('waiting');
    await h.advance(999);
    expect(h.relists).toHaveLength(1);
    await h.advance(1);
    await h.advance(1000);
    expect(h.relists).toEqual([1_000_000, 1_001_000, 1_002_000]);
  });

  it('emits ContainerStarted for a started container and ContainerDied when it exits, nothing when nothing changed', async () => {
    const h = harness();
    await flush();
    expect(h.received).toEqual([]);
    h.world.pods = [running('u1', 'c1')];
    await h.advance(1000);
    expect(h.received).toEqual([{
      type: 'pleg.events', observedAtMs: 1_001_000,
      events: [{ podUid: 'u1', type: 'ContainerStarted', containerId: 'c1' }, { podUid: 'u1', type: 'ContainerStarted', containerId: 'sb-u1' }],
      runningPodUids: ['u1'],
    }]);
    await h.advance(1000);
    expect(h.received).toHaveLength(1);
    h.world.pods = [{ ...running('u1', 'c1'), containers: [{ id: 'c1', name: 'web', state: 'exited' }] }];
    await h.advance(1000);
    expect(h.received.at(-1)?.events).toEqual([{ podUid: 'u1', type: 'ContainerDied', containerId: 'c1' }]);
  });

  it('tells what the relist shows of the dead of a pod whose container died, and nothing of the other pods', async () => {
    const h = harness();
    h.world.pods = [running('u1', 'c1'), running('u2', 'c2')];
    await expect.poll(() => h.received).toHaveLength(1);
    expect(h.received[0]).not.toHaveProperty('deadCounts');
    h.world.pods = [{ ...running('u1', 'c1'), containers: [{ id: 'c0', name: 'web', state: 'exited' }, { id: 'c1', name: 'web', state: 'exited' }] }, running('u2', 'c2')];
    await h.advance(1000);
    await expect.poll(() => h.received).toHaveLength(2);
    expect(h.received.at(-1)).toMatchObject({
      // c0 is new to the PLEG, already exited: it died too.
      events: [{ podUid: 'u1', type: 'ContainerDied', containerId: 'c1' }, { podUid: 'u1', type: 'ContainerDied', containerId: 'c0' }],
      deadCounts: { u1: { sandboxes: 1, exited: 2, exitedOfName: { c0: 2, c1: 2 } } },
    });
    expect(Object.keys(h.received.at(-1)?.deadCounts ?? {})).toEqual(['u1']);
  });

  it('reports the running pods whole when that set changes, even when no event is reportable, and not otherwise', async () => {
    const h = harness();
    h.world.pods = [running('u1', 'c1'), running('u2', 'c2')];
    await flush();
    expect(h.received.map((e) => e.runningPodUids)).toEqual([['u1', 'u2']]);
    // u1's sandbox stops (a reportable event) while its container still runs: the set stays.
    h.world.pods = [{ ...running('u1', 'c1'), sandboxes: [{ id: 'sb-u1', state: 'notReady' }] }, running('u2', 'c2')];
    await h.advance(1000);
    expect(h.received).toHaveLength(2);
    expect(h.received[1]).not.toHaveProperty('runningPodUids');
    // Its container turns unknown: only ContainerChanged, which is not reported, but u1 no longer runs.
    h.world.pods = [{ ...running('u1', 'c1'), sandboxes: [{ id: 'sb-u1', state: 'notReady' }], containers: [{ id: 'c1', name: 'web', state: 'unknown' }] }, running('u2', 'c2')];
    await h.advance(1000);
    expect(h.received[2]).toEqual({ type: 'pleg.events', observedAtMs: 1_002_000, events: [], runningPodUids: ['u2'] });
    expect(h.context().runningPodUids).toEqual(['u2']);
  });

  it('keeps the previous relist and its time when a relist fails, and retries next period', async () => {
    const h = harness(500);
    h.world.pods = [running('u1', 'c1')];
    await flush();
    expect(h.context().lastRelistAtMs).toBe(1_000_000);
    h.world.failing = true;
    await h.advance(500);
    expect(h.context()).toMatchObject({ lastRelistAtMs: 1_000_000, relistCount: 1, lastError: { code: 'KLT_ERR_INTERNAL', message: 'runtime down' } });
    expect(h.context().pods).toEqual([running('u1', 'c1')]);
    h.world.failing = false;
    await h.advance(500);
    expect(h.relists).toHaveLength(3);
    expect(h.context()).toMatchObject({ lastRelistAtMs: 1_001_000, relistCount: 2, lastError: null, lastRelistDurationMs: 3 });
    // Nothing changed across the failure: no events beyond the first relist's.
    expect(h.received).toHaveLength(1);
  });

  it('turns unhealthy when relists keep failing for more than 3 minutes', async () => {
    const h = harness();
    await flush();
    h.world.failing = true;
    await h.advance(1000);
    expect(isPlegHealthy(h.context().lastRelistAtMs, h.clock.now())).toBe(true);
    for (let i = 0; i < 180; i++) await h.advance(1000);
    expect(isPlegHealthy(h.context().lastRelistAtMs, h.clock.now())).toBe(false);
  });

  it('sends at most 1000 events per relist and counts the rest as discarded (Go\'s plegChannelCapacity)', async () => {
    const h = harness();
    // 600 pods appearing at once: a ContainerStarted for each container and each sandbox, 1200 events.
    h.world.pods = Array.from({ length: 600 }, (_, i) => running(`u${String(i).padStart(3, '0')}`, `c${i}`));
    await flush();
    expect(PLEG_CHANNEL_CAPACITY).toBe(1000);
    expect(h.received).toHaveLength(1);
    expect(h.received[0]!.events).toHaveLength(1000);
    expect(h.received[0]!.discarded).toBe(200);
    // The pods none of whose events got through are named, so their next resync reads afresh.
    expect(h.received[0]!.discardedPodUids).toEqual(Array.from({ length: 100 }, (_, i) => `u${500 + i}`));
    // The first events in the diff's order are the ones kept: pods by uid.
    expect(h.received[0]!.events[0]).toMatchObject({ podUid: 'u000' });
    expect(h.received[0]!.events[999]).toMatchObject({ podUid: 'u499' });
    // The running set is whole all the same, and the relist's pods are all kept for the next diff.
    expect(h.received[0]!.runningPodUids).toHaveLength(600);
    expect(h.context().pods).toHaveLength(600);
    expect(h.context().discardedEvents).toBe(200);

    // A later relist under the bound adds nothing to the count, and says nothing of discards.
    h.world.pods = h.world.pods.slice(1);
    await h.advance(1000);
    expect(h.received[1]!.discarded).toBeUndefined();
    expect(h.received[1]!.discardedPodUids).toBeUndefined();
    expect(h.context().discardedEvents).toBe(200);
  });
});
