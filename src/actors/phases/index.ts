/**
 * Every phase actor of the supervisor, merged from the groups that build them. The composition root
 * provides these to `supervisorMachine`.
 */
import type { PhaseId } from '../../domain/phases.js';
import { commandPhases } from './command-phases.js';
import type { PhaseDeps } from './deps.js';
import { kubeletPhases } from './kubelet-phases.js';
import { resourceManagersPhase } from './resource-managers-phase.js';
import { runPhases } from './run-phases.js';
import { cgroupDriverPhase, runtimePhase } from './runtime-phase.js';
import { stopSubsystems } from './stop-subsystems.js';

export function createPhaseActors(deps: PhaseDeps) {
  const phases = {
    ...commandPhases(deps),
    ...runPhases(deps),
    'run.preInitRuntime': runtimePhase(deps),
    'run.cgroupDriverFromCRI': cgroupDriverPhase(deps),
    ...kubeletPhases(deps),
    'startKubelet.resourceManagers': resourceManagersPhase(deps),
  } satisfies Record<PhaseId, unknown>;
  return { ...phases, stopSubsystems: stopSubsystems(deps) };
}
