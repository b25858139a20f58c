import { createActor, createMachine, sendTo, SimulatedClock, type AnyActorRef } from 'xstate';
import { describe, expect, it } from 'vitest';
import { isSyncLoopTimerOwner, SyncLoopLagMeter, timerLagMs } from '../../../src/actors/view/sync-loop-lag.js';

/** A PLEG-like loop: waits `period`, then waits again. */
const ticker = (period: number) => createMachine({ id: 'ticker', initial: 'waiting', states: { waiting: { after: { [period]: { target: 'waiting', reenter: true } } } } });

const stableId = (ref: AnyActorRef) => (ref as unknown as { options?: { systemId?: string } }).options?.systemId ?? ref.id;

function start(systemId: string, machine = ticker(1000)) {
  const clock = new SimulatedClock();
  const meter = new SyncLoopLagMeter(clock, stableId);
  const actor = createActor(machine, { systemId, clock: meter.clock, inspect: meter.inspect }).start();
  return { clock, meter, actor };
}

describe('SyncLoopLagMeter', () => {
  it('records how late a syncLoop timer was handled after it was due', () => {
    const { clock, meter, actor } = start('pleg');
    clock.increment(1250); // the loop was blocked 250 ms past the relist's due time
    expect(meter.histogram.count).toBe(1);
    expect(meter.histogram.sumSeconds).toBeCloseTo(0.25);
    expect(meter.recentMaxMs()).toBe(250);
    actor.stop();
  });

  it('records a timer handled on time as no lag', () => {
    const { clock, meter, actor } = start('pod:u1');
    clock.increment(1000);
    clock.increment(1000);
    expect(meter.histogram.count).toBe(2);
    expect(meter.histogram.sumSeconds).toBe(0);
    expect(meter.histogram.counts[0]).toBe(2);
    actor.stop();
  });

  it('leaves out the timers of actors that are not the syncLoop\'s', () => {
    const { clock, meter, actor } = start('runtime');
    clock.increment(5000);
    expect(meter.histogram.count).toBe(0);
    actor.stop();
  });

  it('counts only the timer\'s own event, not the events it causes in the same callback', () => {
    // An untracked actor whose timer sends at once to a pod worker: that send is not a late input.
    const child = createMachine({ id: 'worker', on: { poke: {} } });
    const parent = createMachine({
      id: 'parent',
      invoke: { id: 'pod:u1', systemId: 'pod:u1', src: child },
      initial: 'a',
      states: { a: { after: { 1000: { target: 'b', actions: sendTo('pod:u1', { type: 'poke' }) } } }, b: {} },
    });
    const { clock, meter, actor } = start('runtime', parent);
    clock.increment(3000);
    expect(meter.histogram.count).toBe(0);
    actor.stop();
  });

  it('keeps the largest lag for a minute only', () => {
    const { clock, meter, actor } = start('pleg');
    clock.increment(1400); // 400 ms late
    for (let i = 0; i < 61; i++) clock.increment(1000);
    expect(meter.histogram.count).toBe(62);
    expect(meter.recentMaxMs()).toBe(0);
    actor.stop();
  });
});

describe('timerLagMs', () => {
  it.each([
    [1000, 1000, 0],
    [1000, 1120, 120],
    [1000, 990, 0], // a clock step back is not negative lag
  ])('due %i, handled %i: %i ms', (due, handled, lag) => {
    expect(timerLagMs(due, handled)).toBe(lag);
  });
});

describe('isSyncLoopTimerOwner', () => {
  it.each([
    ['pleg', true],
    ['pod:0f3c', true],
    ['probe:0f3c:web:liveness', true],
    ['runtime', false],
    ['nodeStatus', false],
    ['syncLoop/podConfig', false],
  ])('%s: %s', (id, tracked) => {
    expect(isSyncLoopTimerOwner(id)).toBe(tracked);
  });
});
