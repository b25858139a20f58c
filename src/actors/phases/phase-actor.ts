/**
 * Builds a phase actor: a promise actor that does one phase's work and resolves with its entry of
 * PhaseOutputs (the supervisor stores it, the journal records it, later phases read it). The work
 * gets an AbortSignal (the supervisor stops the actor when a stop is requested mid-phase) and
 * `waiting(reason)`, which tells the supervisor what the phase waits on.
 */
import { fromPromise } from 'xstate';
import { KubeletBug } from '../../domain/errors.js';
import type { PhaseId } from '../../domain/phases.js';
import type { PhaseActors, PhaseInput, PhaseOutputs } from '../../machines/supervisor.machine.js';

export interface PhaseWork {
  input: PhaseInput;
  signal: AbortSignal;
  waiting: (reason: string) => void;
}

/** `work` resolves with the phase's output; the group's `satisfies PhaseGroup` checks it against PhaseOutputs. */
export function phaseActor<TOutput>(work: (w: PhaseWork) => Promise<TOutput>) {
  return fromPromise<TOutput, PhaseInput>(async ({ input, signal, system }) =>
    work({
      input,
      signal,
      waiting: (reason) => system.get('supervisor')?.send({ type: 'phase.waiting', phase: input.phase, reason }),
    }),
  );
}

/** Some of the phases' actors, each answering its own PhaseOutputs entry. */
export type PhaseGroup = Partial<PhaseActors>;

/** An earlier phase's output; the supervisor runs phases in order, so a missing one is a bug. */
export function outputOf<K extends PhaseId>(input: PhaseInput, phase: K): PhaseOutputs[K] {
  const out = input.outputs[phase];
  if (out === undefined) throw new KubeletBug(`phase ${input.phase} read the output of ${phase}, which has not run`);
  return out;
}
