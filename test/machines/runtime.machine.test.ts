import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, setup, SimulatedClock } from 'xstate';
import type { RuntimeCheck } from '../../src/domain/runtime/runtime-state.js';
import { runtimeMachine } from '../../src/machines/runtime.machine.js';
import { settle } from '../support/settle.js';

/** Answers from a script, one per check, each stamped with the simulated clock's time. */
function start(answers: Omit<RuntimeCheck, 'observedAtMs'>[]) {
  const clock = new SimulatedClock();
  let calls = 0;
  const machine = runtimeMachine.provide({
    actors: {
      checkRuntime: fromPromise(async () => ({ ...(answers[Math.min(calls++, answers.length - 1)]!), observedAtMs: clock.now() })),
    },
  });
  const actor = createActor(machine, { clock, input: { startedAtMs: 0 } });
  actor.start();
  return { actor, clock, calls: () => calls };
}

const ready = { ok: true, runtimeReady: true, networkReady: true };
const noNetwork = { ok: true, runtimeReady: true, networkReady: false, message: 'NetworkReady=false reason:NetworkPluginNotReady' };
const failed = { ok: false, message: 'connect ENOENT /run/containerd/containerd.sock' };

async function tick(clock: SimulatedClock, ms: number) {
  clock.increment(ms);
  await settle();
}

describe('runtimeMachine', () => {
  it('starts connecting and becomes ready on the first good Status', async () => {
    const { actor } = start([ready]);
    expect(actor.getSnapshot().matches('connecting')).toBe(true);
    await settle();
    expect(actor.getSnapshot().matches('ready')).toBe(true);
    expect(actor.getSnapshot().context.reason).toBe('');
  });

  it('checks again every 5 s on the injected clock', async () => {
    const { clock, calls } = start([ready]);
    await settle();
    expect(calls()).toBe(1);
    await tick(clock, 4_999);
    expect(calls()).toBe(1);
    await tick(clock, 1);
    expect(calls()).toBe(2);
  });

  it('goes notReady with the runtime reason when the network is not ready, and back to ready', async () => {
    const { actor, clock } = start([ready, noNetwork, ready]);
    await settle();
    await tick(clock, 5_000);
    expect(actor.getSnapshot().matches('notReady')).toBe(true);
    expect(actor.getSnapshot().context.reason).toContain('NetworkPluginNotReady');
    await tick(clock, 5_000);
    expect(actor.getSnapshot().matches('ready')).toBe(true);
  });

  it('keeps the last good Status while calls fail, and calls the runtime down after 30 s without one, never before (Go)', async () => {
    const { actor, clock } = start([ready, failed]);
    await settle();
    for (let t = 5_000; t < 30_000; t += 5_000) {
      await tick(clock, 5_000);
      expect(actor.getSnapshot().matches('ready')).toBe(true);
    }
    await tick(clock, 5_000);
    expect(actor.getSnapshot().matches('down')).toBe(true);
    expect(actor.getSnapshot().context.reason).toMatch(/container runtime is down: no successful status for 30s/);
  });

  it('keeps a not-ready network not ready while calls fail', async () => {
    const { actor, clock } = start([noNetwork, failed]);
    await settle();
    await tick(clock, 5_000);
    expect(actor.getSnapshot().matches('notReady')).toBe(true);
    expect(actor.getSnapshot().context.reason).toContain('NetworkPluginNotReady');
  });

  it('is down from the start when the runtime never answers for 30 s', async () => {
    const { actor, clock } = start([failed]);
    await settle();
    expect(actor.getSnapshot().matches('notReady')).toBe(true);
    for (let i = 0; i < 6; i++) await tick(clock, 5_000);
    expect(actor.getSnapshot().matches('down')).toBe(true);
  });
});

describe('runtimeMachine and the syncLoop', () => {
  it('tells the syncLoop when the health changes, and only then', async () => {
    const clock = new SimulatedClock();
    const seen: { health: string }[] = [];
    const answers = [ready, ready, failed, failed, ready, noNetwork, ready, failed, failed, failed, failed, failed, failed, failed];
    let calls = 0;
    const parent = setup({
      actors: {
        runtime: runtimeMachine.provide({ actors: { checkRuntime: fromPromise<RuntimeCheck>(async () => ({ ...answers[Math.min(calls++, answers.length - 1)]!, observedAtMs: clock.now() })) } }),
        syncLoop: fromCallback<{ type: string; health: string }>(({ receive }) => { receive((e) => void seen.push({ health: e.health })); }),
      },
    }).createMachine({
      invoke: [
        { src: 'syncLoop', systemId: 'syncLoop' },
        { src: 'runtime', input: { startedAtMs: 0 } },
      ],
    });
    createActor(parent, { clock }).start();
    await settle();
    for (let i = 0; i < 13; i++) await tick(clock, 5_000);
    // Two failed calls are no change (Go); a network not ready is; 30 s without a good Status is down.
    expect(seen.map((s) => s.health)).toEqual(['ready', 'notReady', 'ready', 'down']);
  });
});

describe('runtimeMachine and the runtime-dependent modules', () => {
  it('says runtime.up once to the container and eviction managers, on the first answer with RuntimeReady, even while the network is not ready', async () => {
    const clock = new SimulatedClock();
    const seen: string[] = [];
    const answers = [failed, noNetwork, ready, failed, ready];
    let calls = 0;
    const parent = setup({
      actors: {
        runtime: runtimeMachine.provide({ actors: { checkRuntime: fromPromise<RuntimeCheck>(async () => ({ ...answers[Math.min(calls++, answers.length - 1)]!, observedAtMs: clock.now() })) } }),
        containerManager: fromCallback<{ type: string }>(({ receive }) => { receive((e) => void seen.push(`containerManager ${e.type}`)); }),
        evictionManager: fromCallback<{ type: string }>(({ receive }) => { receive((e) => void seen.push(`evictionManager ${e.type}`)); }),
      },
    }).createMachine({
      invoke: [
        { src: 'containerManager', systemId: 'containerManager' },
        { src: 'evictionManager', systemId: 'evictionManager' },
        { src: 'runtime', input: { startedAtMs: 0 } },
      ],
    });
    createActor(parent, { clock }).start();
    await settle();
    expect(seen).toEqual([]);
    for (let i = 0; i < 4; i++) await tick(clock, 5_000);
    expect(seen).toEqual(['containerManager runtime.up', 'evictionManager runtime.up']);
  });
});
