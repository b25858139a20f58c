/**
 * Builds a phase actor: a promise actor that does one phase's work and resolves with plain JSON
 * (the supervisor stores it, the journal records it). The work gets an AbortSignal (the supervisor
 * stops the actor when a stop is requested mid-phase) and `waiting(reason)`, which tells the
 * supervisor what the phase waits on.
 */
import { fromPromise } from 'xstate';
import type { JsonValue, PhaseInput } from '../../machines/supervisor.machine.js';

export interface PhaseWork {
  input: PhaseInput;
  signal: AbortSignal;
  waiting: (reason: string) => void;
}

/** `work` resolves with plain data (objects of strings, numbers, booleans, arrays): the phase's output. */
export function phaseActor(work: (w: PhaseWork) => Promise<object | string | number | boolean | null>) {
  return fromPromise<JsonValue, PhaseInput>(async ({ input, signal, system }) =>
    (await work({
      input,
      signal,
      waiting: (reason) => system.get('supervisor')?.send({ type: 'phase.waiting', phase: input.phase, reason }),
    })) as JsonValue,
  );
}
