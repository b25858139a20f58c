/**
 * Phases whose work belongs to a later issue. The real binary must not pretend they succeeded: it
 * stops there with KLT_ERR_PHASE_NOT_IMPLEMENTED naming the phase and the issue. Tests satisfy
 * these phases with fakes.
 */
import { KubeletError } from '../../domain/errors.js';
import type { PhaseId } from '../../domain/phases.js';
import { phaseActor } from './phase-actor.js';

export function notImplementedError(phase: PhaseId, issue: number, what?: string): KubeletError {
  const subject = what ? `${what} (phase ${phase})` : `phase ${phase}`;
  return new KubeletError('KLT_ERR_PHASE_NOT_IMPLEMENTED', `${subject} is not implemented yet (issue #${issue})`);
}

export function notImplemented(phase: PhaseId, issue: number) {
  return phaseActor(async () => {
    throw notImplementedError(phase, issue);
  });
}
