/**
 * The machine definitions' hash (the journal header's machinesSha256, which replay checks): a
 * change to a machine's config or to an implementation given to setup() must change it.
 */
import { describe, expect, it } from 'vitest';
import { assign, enqueueActions, setup } from 'xstate';
import { machinesShape, machinesSha256 } from '../../src/bin/machines.js';
import { MACHINES } from '../../src/machines/index.js';

const counter = setup({
  types: { context: {} as { n: number } },
  actions: {
    bump: assign(({ context }) => ({ n: context.n + 1 })),
    announce: enqueueActions(({ enqueue }) => enqueue.raise({ type: 'bumped' })),
  },
  guards: { small: ({ context }) => context.n < 10 },
  delays: { tick: 1000 },
}).createMachine({ id: 'counter', context: { n: 0 }, on: { bump: { guard: 'small', actions: ['bump', 'announce'] } } });

const hashOf = (m: typeof counter) => machinesSha256({ counter: m });

describe('machinesSha256', () => {
  it('is the same for the same definitions', () => {
    expect(hashOf(counter)).toBe(hashOf(counter.provide({})));
    expect(machinesSha256()).toBe(machinesSha256(MACHINES));
  });

  it.each([
    ['an assign action', { actions: { bump: assign(({ context }: { context: { n: number } }) => ({ n: context.n + 2 })) } }],
    ['an enqueueActions action', { actions: { announce: enqueueActions(({ enqueue }) => enqueue.raise({ type: 'bumped twice' })) } }],
    ['a guard', { guards: { small: ({ context }: { context: { n: number } }) => context.n < 11 } }],
    ['a delay', { delays: { tick: 2000 } }],
  ])('changes with %s given to setup(), not only with the config', (_what, changed) => {
    expect(hashOf(counter.provide(changed as never))).not.toBe(hashOf(counter));
  });
});

// The bundler reprints function text; the shape it must keep is everything else (scripts/bundle-daemon.ts).
describe('machinesShape', () => {
  const shapeOf = (m: typeof counter) => machinesShape({ counter: m });

  it('leaves every function\'s text out, which a reprint changes', () => {
    const reprinted = counter.provide({ guards: { small: ({ context }: { context: { n: number } }) => 10 > context.n } } as never);
    expect(hashOf(reprinted)).not.toBe(hashOf(counter));
    expect(shapeOf(reprinted)).toBe(shapeOf(counter));
  });

  it.each([
    ['a delay\'s value', counter.provide({ delays: { tick: 2000 } })],
    ['an implementation more', counter.provide({ guards: { large: () => true } } as never)],
    ['a state', setup({}).createMachine({ id: 'counter', initial: 'a', states: { a: {} } })],
  ])('changes with %s', (_what, changed) => {
    expect(shapeOf(changed as never)).not.toBe(shapeOf(counter));
  });
});
