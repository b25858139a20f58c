/**
 * The replay gate covers the delays of a pod that fails and of a probe: the standalone fixture holds
 * a pod whose sync fails and waits out the pod worker's back-off, an image pull that fails and backs
 * off, and a readiness probe that makes its pod ready and then not. Today's machines with one of
 * those delays changed must diverge, and the first difference must be the record where that delay is
 * set: the timer's `schedule`, or for the image pull back-off (a window, not a timer) the next sync's
 * `spawn`, which is handed when the window ends.
 */
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMachine, type AnyStateMachine } from 'xstate';
import { replay, type ReplayResult } from '../../src/actors/journal/replay.js';
import { readJournal } from '../../src/adapters/journal-file/reader.js';
import { inertSystemEffects, provideSystem, type MachineOverrides } from '../../src/bin/system.js';
import type { JournalRecord } from '../../src/domain/journal/record.js';
import { podWorkerMachine, type PodWorkerContext } from '../../src/machines/pod-worker.machine.js';
import { probeMachine, type ProbeContext } from '../../src/machines/probe.machine.js';

const { records } = readJournal(join(resolve('test/fixtures/eventlogs'), 'standalone-embedded.jsonl'));

/** The same machine, its context changed from the start (what another input default would do). */
function withContext<C>(machine: AnyStateMachine, change: (context: C) => Partial<C>): AnyStateMachine {
  const make = machine.config.context as (args: unknown) => C;
  return createMachine({ ...machine.config, context: (args: unknown) => { const c = make(args); return { ...c, ...change(c) }; } } as never, machine.implementations as never);
}

const replayWith = (overrides: MachineOverrides): ReplayResult =>
  replay(records, { machine: provideSystem(inertSystemEffects(), overrides), rootSystemId: 'supervisor' });

type Scheduled = { event?: { type?: string }; delay?: number };
const firstSchedule = (eventType: string): JournalRecord | undefined =>
  records.find((r) => r.kind === 'derived' && r.type === 'action' && r.name === 'schedule' && (r.payload as Scheduled).event?.type?.startsWith(eventType));

function divergence(result: ReplayResult) {
  expect(result.ok, 'the replay stayed identical').toBe(false);
  if (result.ok) throw new Error('unreachable');
  return result.divergence;
}

describe('the replay gate against a changed delay of a failing pod or a probe', () => {
  it('replays the fixture identically with today\'s machines', () => {
    expect(replayWith({})).toMatchObject({ ok: true });
  });

  it('diverges at the pod worker\'s first back-off when that back-off is doubled', () => {
    const backOff = firstSchedule('xstate.after.backOffOrDeadline.podWorker.backingOff');
    expect(backOff, 'the fixture holds a pod worker backing off after a failed sync').toBeDefined();
    const doubled = withContext<PodWorkerContext>(podWorkerMachine, (c) => ({ backOffPeriodMs: c.backOffPeriodMs * 2 }));
    const at = divergence(replayWith({ podWorker: doubled as never }));
    expect(at).toMatchObject({ seq: backOff!.seq, actor: backOff!.actor, expected: { name: 'schedule' } });
    expect(at.difference).toMatchObject({ field: 'payload.delay', expected: 10_000, actual: 20_000 });
  });

  it('diverges at the first sync handed the image pull back-off when that back-off is halved', () => {
    const handed = records.find((r) => r.kind === 'derived' && r.name === 'spawn' && JSON.stringify(r.payload).includes('"imagePullBackOffEnds"'));
    expect(handed, 'the fixture holds a sync after a failed image pull').toBeDefined();
    const halved = withContext<PodWorkerContext>(podWorkerMachine, (c) => ({
      imagePullBackOffPolicy: { initialMs: c.imagePullBackOffPolicy.initialMs / 2, maxMs: c.imagePullBackOffPolicy.maxMs / 2 },
    }));
    const at = divergence(replayWith({ podWorker: halved as never }));
    expect(at).toMatchObject({ seq: handed!.seq, actor: handed!.actor, expected: { name: 'spawn', payload: { src: 'syncPod' } } });
    expect(at.difference?.field).toMatch(/^payload\.input\.imagePullBackOffEnds\./);
    expect((at.difference!.expected as number) - (at.difference!.actual as number)).toBe(5_000);
  });

  it('diverges at the readiness probe\'s first period when the probe period is doubled', () => {
    const readiness = records.filter((r) => r.kind === 'derived' && r.name === 'probe.result.changed' && r.actor === 'syncLoop');
    expect(readiness.length, 'the fixture holds readiness changes').toBeGreaterThanOrEqual(2);
    const period = firstSchedule('xstate.after.period.probe');
    expect(period).toBeDefined();
    const slower = probeMachine.provide({ delays: { period: ({ context }: { context: ProbeContext }) => context.timing.periodSeconds * 2000 } } as never);
    const at = divergence(replayWith({ probe: slower as never }));
    expect(at).toMatchObject({ seq: period!.seq, actor: period!.actor, expected: { name: 'schedule' } });
    expect(at.difference).toMatchObject({ field: 'payload.delay', expected: 1_000, actual: 2_000 });
  });
});
