/**
 * The action records the journal keeps (src/actors/journal/action-records.ts) from XState's
 * `@xstate.action` inspection events. The params of XState's built-in actions are not a typed API:
 * this test pins the shapes we read, so an XState upgrade that changes them fails here.
 */
import { describe, expect, it } from 'vitest';
import { cancel, createActor, emit, fromPromise, raise, sendTo, setup, SimulatedClock } from 'xstate';
import { createInspectionTap } from '../../../src/actors/journal/inspection-tap.js';
import type { JournalRecord } from '../../../src/domain/journal/record.js';

const machine = setup({
  types: { emitted: {} as { type: 'decided'; why: string } },
  actors: {
    work: fromPromise<string, { item: string }>(async ({ input }) => input.item),
    idle: fromPromise<string>(() => new Promise<string>(() => {})),
  },
  delays: { later: 1500 },
}).createMachine({
  id: 'decider',
  initial: 'working',
  states: {
    working: {
      invoke: { id: 'work', src: 'work', input: { item: 'a' }, onDone: 'waiting' },
    },
    waiting: {
      invoke: { id: 'helper', src: 'idle' },
      entry: [
        raise({ type: 'tick' }, { id: 'tock', delay: 250 }),
        cancel('tock'),
        sendTo('helper', { type: 'poke', n: 1 }),
        raise({ type: 'noted' }),
        emit({ type: 'decided', why: 'test' }),
      ],
      after: { later: 'done' },
    },
    done: { type: 'final' },
  },
});

describe('action records', () => {
  it('journal spawns with src and input, delays with duration and id, cancels, sends, raises, emits and stops', async () => {
    const records: JournalRecord[] = [];
    const clock = new SimulatedClock();
    const tap = createInspectionTap({ clock, onRecord: (r) => records.push(r) });
    const actor = createActor(machine, { clock, inspect: tap.inspect, systemId: 'decider' });
    actor.start();
    await new Promise<void>((resolve) => setImmediate(resolve)); // the work promise settles
    clock.increment(1500);
    expect(actor.getSnapshot().status).toBe('done');

    const actions = records.filter((r) => r.type === 'action').map((r) => [r.actor, r.name, r.payload]);
    // Entry actions run before the state's invocations start, so the send names the helper by the
    // id it is about to get (XState resolves it when the child exists).
    expect(actions).toEqual([
      ['decider', 'spawn', { child: 'decider/work', src: 'work', input: { item: 'a' } }],
      ['decider', 'stop', { child: 'decider/work' }],
      ['decider', 'schedule', { event: { type: 'tick' }, delay: 250, id: 'tock' }],
      ['decider', 'cancel', { id: 'tock' }],
      ['decider', 'send', { to: 'helper', event: { type: 'poke', n: 1 } }],
      ['decider', 'raise', { event: { type: 'noted' } }],
      ['decider', 'emit', { event: { type: 'decided', why: 'test' } }],
      ['decider', 'schedule', { event: { type: 'xstate.after.later.decider.waiting' }, delay: 1500, id: 'xstate.after.later.decider.waiting' }],
      ['decider', 'spawn', { child: 'decider/helper', src: 'idle', input: null }],
      ['decider', 'cancel', { id: 'xstate.after.later.decider.waiting' }],
      ['decider', 'stop', { child: 'decider/helper' }],
    ]);
    expect(records.every((r) => r.type !== 'action' || r.kind === 'derived')).toBe(true);
  });
});
