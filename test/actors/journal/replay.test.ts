import { describe, expect, it } from 'vitest';
import { assign, createActor, createMachine, fromPromise, waitFor } from 'xstate';
import { KubeletError } from '../../../src/domain/errors.js';
import { createInspectionTap } from '../../../src/actors/journal/inspection-tap.js';
import { inertActors, replay } from '../../../src/actors/journal/replay.js';
import { PHASE_IDS } from '../../../src/domain/phases.js';
import type { JournalRecord } from '../../../src/domain/journal/record.js';
import { supervisorMachine, type JsonValue, type PhaseInput } from '../../../src/machines/supervisor.machine.js';

const realClock = { now: () => Date.now(), setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms), clearTimeout: (id: unknown) => clearTimeout(id as NodeJS.Timeout) };
const ACTOR_NAMES = [...PHASE_IDS, 'stopSubsystems'];

/** A live run with fake effects: every phase answers asynchronously, one reports waiting, then SIGTERM. */
async function recordRun(opts: { failAt?: string } = {}): Promise<JournalRecord[]> {
  const records: JournalRecord[] = [];
  const tap = createInspectionTap({ clock: realClock, onRecord: (r) => records.push(r) });
  const phases = Object.fromEntries(PHASE_IDS.map((id) => [id, fromPromise<JsonValue, PhaseInput>(async ({ system }) => {
    await new Promise((r) => setImmediate(r)); // answers on a later turn, as a real effect does
    if (id === 'run.preInitRuntime') system.get('supervisor')?.send({ type: 'phase.waiting', phase: id, reason: 'runtime socket absent' });
    if (id === opts.failAt) throw Object.assign(new Error('no such file'), { code: 'KLT_ERR_CONFIG_READ' });
    return { phase: id, at: 'fake' };
  })]));
  const actor = createActor(supervisorMachine.provide({
    actors: { ...phases, stopSubsystems: fromPromise<'clean' | 'failed', { signal: string }>(async () => 'clean') },
  }), { input: { argv: ['--v=2'], stopTimeoutMs: 5000 }, systemId: 'supervisor', inspect: tap.inspect, clock: realClock });
  actor.start();
  if (!opts.failAt) {
    await waitFor(actor, (s) => s.matches('running'));
    actor.send({ type: 'kubelet.stop.requested', signal: 'SIGTERM' });
  }
  await waitFor(actor, (s) => s.status === 'done');
  return records;
}

const replayMachine = supervisorMachine.provide({ actors: inertActors(ACTOR_NAMES) as never });

describe('inspection tap', () => {
  it('marks adapter results, signals and the root input as inputs and the rest as derived', async () => {
    const records = await recordRun();
    const inputs = records.filter((r) => r.kind === 'input');
    expect(inputs[0]).toMatchObject({ actor: 'supervisor', name: 'xstate.init', payload: { input: { argv: ['--v=2'] } } });
    expect(inputs.filter((r) => r.name.startsWith('xstate.done.actor.')).map((r) => r.name.slice(18))).toEqual([...PHASE_IDS, 'stopSubsystems']);
    expect(inputs.find((r) => r.name === 'phase.waiting')).toMatchObject({ actor: 'supervisor', payload: { reason: 'runtime socket absent' } });
    expect(inputs.find((r) => r.name === 'kubelet.stop.requested')).toMatchObject({ source: null, payload: { signal: 'SIGTERM' } });
    expect(records.filter((r) => r.type === 'actor').map((r) => r.actor)).toContain('supervisor/run.lockFile');
    expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i + 1));
    const states = records.filter((r) => r.type === 'state' && r.actor === 'supervisor');
    expect(states.at(-1)?.payload).toMatchObject({ value: 'stopped', status: 'done' });
  });
});

describe('replay', () => {
  it('regenerates every derived record of a live run', async () => {
    const records = await recordRun();
    const result = replay(records, { machine: replayMachine, rootSystemId: 'supervisor' });
    expect(result).toMatchObject({ ok: true, records: records.length });
  });

  it('regenerates a failed start-up', async () => {
    const records = await recordRun({ failAt: 'command.loadConfigFile' });
    expect(records.at(-1)?.payload).toMatchObject({ value: 'failed', status: 'done' });
    expect(replay(records, { machine: replayMachine, rootSystemId: 'supervisor' }).ok).toBe(true);
  });

  it('hands a machine the error class the live run threw, so what it derives from the error replays the same', async () => {
    // The machine's output is the class of the error it was handed: live it is a KubeletError; in
    // a replay the log holds the serialized form, which the replay turns back into a KubeletError.
    const machine = createMachine({
      id: 'failing',
      output: ({ context }) => context,
      initial: 'working',
      context: { errorClass: '', code: '', retryable: false },
      states: {
        working: {
          invoke: {
            src: 'work',
            onError: {
              target: 'failed',
              actions: assign(({ event }) => {
                const error = event.error as { constructor: { name: string }; code?: string; retryable?: boolean };
                return { errorClass: error.constructor.name, code: String(error.code), retryable: error.retryable === true };
              }),
            },
          },
        },
        failed: { type: 'final' },
      },
    });
    const records: JournalRecord[] = [];
    const tap = createInspectionTap({ clock: realClock, onRecord: (r) => records.push(r) });
    const live = createActor(machine.provide({
      actors: { work: fromPromise(async () => { throw new KubeletError('KLT_ERR_CRI_UNAVAILABLE', 'runtime is down', { retryable: true }); }) },
    }), { systemId: 'failing', inspect: tap.inspect, clock: realClock });
    live.start();
    const done = await waitFor(live, (s) => s.status === 'done');
    expect(done.output).toEqual({ errorClass: 'KubeletError', code: 'KLT_ERR_CRI_UNAVAILABLE', retryable: true });
    expect(replay(records, { machine: machine.provide({ actors: inertActors(['work']) }), rootSystemId: 'failing' })).toMatchObject({ ok: true });
  });

  it('names the first divergent record when a derived payload was changed', async () => {
    const records = await recordRun();
    const victim = records.find((r) => r.kind === 'derived' && r.type === 'state' && r.seq > 20)!;
    const edited = records.map((r) => (r.seq === victim.seq ? { ...r, payload: { value: 'tampered', status: 'active' } } : r));
    const result = replay(edited, { machine: replayMachine, rootSystemId: 'supervisor' });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.divergence.seq).toBe(victim.seq);
      expect(result.divergence.actual?.payload).toEqual(victim.payload);
    }
  });

  it('fails with a divergence when the machine itself changed', async () => {
    const records = await recordRun();
    // The same supervisor, but machineInfo now skips straight to preInitRuntime.
    const config = supervisorMachine.config as unknown as { states: Record<string, { states: Record<string, { invoke: object }> }> };
    const run = config.states.run!;
    const machineInfo = run.states.machineInfo!;
    const alteredConfig = {
      ...config,
      states: { ...config.states, run: { ...run, states: { ...run.states, machineInfo: {
        ...machineInfo, invoke: { ...machineInfo.invoke, onDone: { target: '#supervisor.run.preInitRuntime' } },
      } } } },
    };
    const altered = createMachine(alteredConfig as never, supervisorMachine.implementations as never);
    const result = replay(records, { machine: altered.provide({ actors: inertActors(ACTOR_NAMES) as never }), rootSystemId: 'supervisor' });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      // The log says the next phase was eventRecorder; the changed machine went to preInitRuntime.
      expect(result.divergence.expected).toMatchObject({ type: 'actor', actor: 'supervisor/run.eventRecorder' });
      expect(result.divergence.actual).toMatchObject({ type: 'actor', actor: 'supervisor/run.preInitRuntime' });
    }
  });
});
