/**
 * The whole actor system in one place: every machine, provided with its effects. The daemon passes
 * the real effects; replay passes inert ones (`inertActors(SYSTEM_EFFECTS)`), so the machines that
 * run are the same in both and only the world differs.
 *
 *   supervisor ─┬─ runtime                      (updateRuntimeUp)
 *               ├─ statusManager, nodeStatus, nodeLease   (cluster mode)
 *               └─ syncLoop ─┬─ podConfig       (file, http and api sources)
 *                            ├─ pleg
 *                            ├─ pod:<uid>       (one pod worker per pod)
 *                            └─ probe:<uid>:<container>:<type>
 */
import type { AnyActorLogic } from 'xstate';
import { PHASE_IDS } from '../domain/phases.js';
import { PLEG_EFFECTS, plegMachine } from '../machines/pleg.machine.js';
import { POD_CONFIG_EFFECTS, podConfigMachine } from '../machines/pod-config.machine.js';
import { POD_WORKER_EFFECTS, podWorkerMachine } from '../machines/pod-worker.machine.js';
import { PROBE_EFFECTS, probeMachine } from '../machines/probe.machine.js';
import { RUNTIME_EFFECTS, runtimeMachine } from '../machines/runtime.machine.js';
import { supervisorMachine } from '../machines/supervisor.machine.js';
import { NODE_LEASE_EFFECTS, nodeLeaseMachine } from '../machines/node-lease.machine.js';
import { NODE_STATUS_EFFECTS, nodeStatusMachine } from '../machines/node-status.machine.js';
import { STATUS_MANAGER_EFFECTS, statusManagerMachine } from '../machines/status-manager.machine.js';
import { syncLoopMachine } from '../machines/sync-loop.machine.js';

/** Every effectful actor src in the system, by the machine that invokes it. */
export const SUPERVISOR_EFFECTS = [...PHASE_IDS, 'stopSubsystems'] as const;
export const SYSTEM_EFFECTS: readonly string[] = [
  ...SUPERVISOR_EFFECTS,
  ...RUNTIME_EFFECTS,
  ...POD_CONFIG_EFFECTS,
  ...PLEG_EFFECTS,
  ...POD_WORKER_EFFECTS,
  ...PROBE_EFFECTS,
  ...NODE_STATUS_EFFECTS,
  ...NODE_LEASE_EFFECTS,
  ...STATUS_MANAGER_EFFECTS,
];

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

/** Machines to use instead of the real ones (tests that show a changed machine is caught). */
export interface MachineOverrides {
  supervisor?: typeof supervisorMachine;
  syncLoop?: typeof syncLoopMachine;
  podWorker?: typeof podWorkerMachine;
}

export function provideSystem(effects: Effects, overrides: MachineOverrides = {}) {
  const provide = <M extends { provide: (i: { actors: never }) => M }>(m: M, names: readonly string[], extra: Effects = {}) =>
    m.provide({ actors: { ...pick(effects, names), ...extra } as never });
  // The syncLoop has no effects of its own: only children.
  const syncLoop = provide(overrides.syncLoop ?? syncLoopMachine, [], {
    podConfig: provide(podConfigMachine, POD_CONFIG_EFFECTS),
    pleg: provide(plegMachine, PLEG_EFFECTS),
    podWorker: provide(overrides.podWorker ?? podWorkerMachine, POD_WORKER_EFFECTS),
    probe: provide(probeMachine, PROBE_EFFECTS),
  });
  return provide(overrides.supervisor ?? supervisorMachine, SUPERVISOR_EFFECTS, {
    runtime: provide(runtimeMachine, RUNTIME_EFFECTS),
    nodeStatus: provide(nodeStatusMachine, NODE_STATUS_EFFECTS),
    nodeLease: provide(nodeLeaseMachine, NODE_LEASE_EFFECTS),
    statusManager: provide(statusManagerMachine, STATUS_MANAGER_EFFECTS),
    syncLoop,
  });
}
