/**
 * The whole actor system in one place: every machine, provided with its effects. The daemon passes
 * the real effects; replay passes inert ones (`inertActors(SYSTEM_EFFECTS)`), so the machines that
 * run are the same in both and only the world differs.
 */
import type { AnyActorLogic } from 'xstate';
import { PHASE_IDS } from '../domain/phases.js';
import { RUNTIME_EFFECTS, runtimeMachine } from '../machines/runtime.machine.js';
import { supervisorMachine } from '../machines/supervisor.machine.js';

/** Every effectful actor src in the system, by the machine that invokes it. */
export const SUPERVISOR_EFFECTS = [...PHASE_IDS, 'stopSubsystems'] as const;
export const SYSTEM_EFFECTS: readonly string[] = [...SUPERVISOR_EFFECTS, ...RUNTIME_EFFECTS];

/** The machines, for hashing into the journal header. */
export const MACHINES = { supervisor: supervisorMachine, runtime: runtimeMachine } as const;

type Effects = Record<string, AnyActorLogic>;

function pick(effects: Effects, names: readonly string[]): Effects {
  const out: Effects = {};
  for (const n of names) {
    const logic = effects[n];
    if (!logic) throw new Error(`effect ${n} was not provided`);
    out[n] = logic;
  }
  return out;
}

export function provideSystem(effects: Effects) {
  const runtime = runtimeMachine.provide({ actors: pick(effects, RUNTIME_EFFECTS) as never });
  return supervisorMachine.provide({ actors: { ...pick(effects, SUPERVISOR_EFFECTS), runtime } as never });
}
