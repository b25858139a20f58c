/**
 * The machine registry: every machine of the system by the name the journal, the graph command and
 * the visualizer give it. One list, so the hash in the journal header, the charts the page draws and
 * `kubelet-ts graph` cannot drift apart. The order is the hash's order: append, never reorder.
 */
import { machineGraph, type StateGraph } from '../domain/graph/model.js';
import { certificateManagerMachine, servingCertificateManagerMachine } from './certificate-manager.machine.js';
import { evictionManagerMachine } from './eviction-manager.machine.js';
import { nodeLeaseMachine } from './node-lease.machine.js';
import { nodeStatusMachine } from './node-status.machine.js';
import { plegMachine } from './pleg.machine.js';
import { podConfigMachine } from './pod-config.machine.js';
import { podWorkerMachine } from './pod-worker.machine.js';
import { probeMachine } from './probe.machine.js';
import { runtimeMachine } from './runtime.machine.js';
import { statusManagerMachine } from './status-manager.machine.js';
import { supervisorMachine } from './supervisor.machine.js';
import { syncLoopMachine } from './sync-loop.machine.js';
import { volumeManagerMachine } from './volume-manager.machine.js';
import { volumeMachine } from './volume.machine.js';
import { containerManagerMachine } from './container-manager.machine.js';
import { nodeShutdownMachine } from './node-shutdown.machine.js';
import { pluginManagerMachine } from './plugin-manager.machine.js';
import { pluginRegistrationMachine } from './plugin-registration.machine.js';
import { deviceManagerMachine } from './device-manager.machine.js';
import { devicePluginMachine } from './device-plugin.machine.js';

export const MACHINES = {
  supervisor: supervisorMachine,
  runtime: runtimeMachine,
  syncLoop: syncLoopMachine,
  podConfig: podConfigMachine,
  pleg: plegMachine,
  podWorker: podWorkerMachine,
  probe: probeMachine,
  nodeStatus: nodeStatusMachine,
  nodeLease: nodeLeaseMachine,
  statusManager: statusManagerMachine,
  certificateManager: certificateManagerMachine,
  servingCertificateManager: servingCertificateManagerMachine,
  volumeManager: volumeManagerMachine,
  volume: volumeMachine,
  containerManager: containerManagerMachine,
  evictionManager: evictionManagerMachine,
  nodeShutdown: nodeShutdownMachine,
  pluginManager: pluginManagerMachine,
  pluginRegistration: pluginRegistrationMachine,
  deviceManager: deviceManagerMachine,
  devicePlugin: devicePluginMachine,
} as const;

export type MachineName = keyof typeof MACHINES;

/** Every machine as a state graph, in registry order. */
export function machineGraphs(): StateGraph[] {
  return Object.entries(MACHINES).map(([name, m]) => machineGraph(name, m.root));
}
