import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { LiveResources } from '../../../src/actors/resource-managers/live-resources.js';
import { createResourceManagersActor } from '../../../src/actors/resource-managers/resource-managers-actor.js';
import type { StateFile } from '../../../src/actors/resource-managers/state-files.js';
import type { Assignments } from '../../../src/domain/resource-managers/assignments.js';
import { EMPTY_INVENTORY } from '../../../src/domain/resource-managers/inventory.js';
import { inventory, machine } from '../../domain/resource-managers/topologies.js';

/** A state file that records what it is asked to write; its first write waits until `release()`. */
function slowFile() {
  const written: Assignments[] = [];
  let release = () => {};
  let first = true;
  const file: StateFile = {
    name: 'test_state',
    read: async () => ({}),
    write: async (a) => {
      if (first) {
        first = false;
        await new Promise<void>((resolve) => { release = resolve; });
      }
      written.push(a);
    },
  };
  return { file, written, release: () => release() };
}

/** One macrotask: the window in which a run a stopped timer still started would have counted. */
const oneMacrotask = () => new Promise((resolve) => setTimeout(resolve, 0)); // not a wait for an event: the test asserts that nothing happens in it
const logger = pino({ level: 'silent' });

describe('the resourceManagers effect', () => {
  it('updates the live assignments at once and writes the latest of changes that came during a write', async () => {
    const live = new LiveResources({ ...EMPTY_INVENTORY, cpu: inventory(machine(1, 4, 1), [0]) }, {});
    const { file, written, release } = slowFile();
    const actor = createActor(createResourceManagersActor({ runtime: () => ({ live, stateFiles: [file] }), clock: new SimulatedClock(), logger })).start();
    actor.send({ type: 'resources.changed', assignments: { a: { main: { cpus: [1] } } } });
    expect(live.sharedCpus()).toEqual([0, 2, 3]);
    actor.send({ type: 'resources.changed', assignments: { b: { main: { cpus: [2] } } } });
    actor.send({ type: 'resources.changed', assignments: { c: { main: { cpus: [3] } } } });
    expect(live.assignments).toEqual({ c: { main: { cpus: [3] } } });
    release();
    await vi.waitFor(() => expect(written).toEqual([{ a: { main: { cpus: [1] } } }, { c: { main: { cpus: [3] } } }]));
    actor.stop();
  });

  it('runs the CPU reconcile every period, and no more once stopped', async () => {
    // The reconcile arms its next timer once a run is done: the test waits for that, not for time.
    let armed = 0;
    const clock = new (class extends SimulatedClock {
      override setTimeout(fn: (...args: unknown[]) => void, ms: number): number {
        armed++;
        return super.setTimeout(fn, ms);
      }
    })();
    let runs = 0;
    const live = new LiveResources(EMPTY_INVENTORY, {});
    const actor = createActor(createResourceManagersActor({
      runtime: () => ({ live, stateFiles: [], cpuReconcile: { periodMs: 1000, run: async () => { runs++; } } }), clock, logger,
    })).start();
    clock.increment(999);
    expect(runs).toBe(0);
    clock.increment(1);
    await vi.waitFor(() => expect(runs).toBe(1));
    await vi.waitFor(() => expect(armed).toBe(2));
    clock.increment(1000);
    await vi.waitFor(() => expect(runs).toBe(2));
    actor.stop();
    clock.increment(5000);
    await oneMacrotask();
    expect(runs).toBe(2);
  });
});
