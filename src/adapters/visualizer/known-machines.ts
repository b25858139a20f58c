/**
 * The machines the page draws when the caller names none. The composition root's own list
 * (`MACHINES` in src/bin/system.ts) is the source of truth and should be passed in
 * (`visualizer.graphs`); adapters may not import bin/, so this is the fallback.
 */
import { machineGraph, type StateGraph, type StateNodeLike } from '../../domain/graph/model.js';
import { plegMachine } from '../../machines/pleg.machine.js';
import { podConfigMachine } from '../../machines/pod-config.machine.js';
import { podWorkerMachine } from '../../machines/pod-worker.machine.js';
import { probeMachine } from '../../machines/probe.machine.js';
import { runtimeMachine } from '../../machines/runtime.machine.js';
import { supervisorMachine } from '../../machines/supervisor.machine.js';
import { syncLoopMachine } from '../../machines/sync-loop.machine.js';

export function knownMachineGraphs(): StateGraph[] {
  const machines = { supervisor: supervisorMachine, runtime: runtimeMachine, syncLoop: syncLoopMachine, podConfig: podConfigMachine, pleg: plegMachine, podWorker: podWorkerMachine, probe: probeMachine };
  return Object.entries(machines).map(([name, m]) => machineGraph(name, m.root as unknown as StateNodeLike));
}
