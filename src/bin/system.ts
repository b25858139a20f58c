/**
 * The whole actor system in one place: every machine, provided with its effects. The daemon passes
 * the real effects; replay passes inert ones (`inertSystemEffects()`), so the machines that
 * run are the same in both and only the world differs.
 *
 *   supervisor ─┬─ runtime                      (updateRuntimeUp)
 *               ├─ certificateManager           (cluster mode, rotateCertificates)
 *               ├─ servingCertificateManager    (cluster mode, serverTLSBootstrap)
 *               ├─ volumeManager ── volume:<uid>:<name>   (one per pod volume)
 *               ├─ containerManager             (QoS and pod cgroups, after the first runtime-up)
 *               ├─ statusManager, nodeStatus, nodeLease   (cluster mode)
 *               ├─ evictionManager              (once the runtime is first ready)
 *               ├─ nodeShutdown                 (graceful node shutdown configured; logind once the runtime is ready)
 *               ├─ pluginManager ── plugin:<socket>   (CSI driver registration; watches once the runtime is ready)
 *               ├─ deviceManager ── devicePlugin:<resource>:<n>   (device plugins; serves kubelet.sock once the runtime is ready)
 *               └─ syncLoop ─┬─ podConfig       (file, http and api sources)
 *                            ├─ pleg
 *                            ├─ containerDeletor (removes dead containers)
 *                            ├─ sandboxDeletor  (removes stopped sandboxes)
 *                            ├─ pod:<uid>       (one pod worker per pod)
 *                            └─ probe:<uid>:<container>:<type>
 */
import type { AnyStateMachine } from 'xstate';
import { inertActors } from '../actors/journal/replay.js';
import { PHASE_IDS } from '../domain/phases.js';
import { PLEG_EFFECTS, plegMachine } from '../machines/pleg.machine.js';
import { POD_CONFIG_EFFECTS, podConfigMachine } from '../machines/pod-config.machine.js';
import { POD_WORKER_EFFECTS, podWorkerMachine } from '../machines/pod-worker.machine.js';
import { PROBE_EFFECTS, probeMachine } from '../machines/probe.machine.js';
import { RUNTIME_EFFECTS, runtimeMachine } from '../machines/runtime.machine.js';
import { supervisorMachine } from '../machines/supervisor.machine.js';
import {
  CERTIFICATE_MANAGER_EFFECTS, SERVING_CERTIFICATE_MANAGER_EFFECTS, certificateManagerMachine, servingCertificateManagerMachine,
} from '../machines/certificate-manager.machine.js';
import { NODE_LEASE_EFFECTS, nodeLeaseMachine } from '../machines/node-lease.machine.js';
import { NODE_STATUS_EFFECTS, nodeStatusMachine } from '../machines/node-status.machine.js';
import { STATUS_MANAGER_EFFECTS, statusManagerMachine } from '../machines/status-manager.machine.js';
import { SYNC_LOOP_EFFECTS, syncLoopMachine } from '../machines/sync-loop.machine.js';
import { VOLUME_EFFECTS, volumeMachine } from '../machines/volume.machine.js';
import { VOLUME_MANAGER_EFFECTS, volumeManagerMachine } from '../machines/volume-manager.machine.js';
import { CONTAINER_MANAGER_EFFECTS, containerManagerMachine } from '../machines/container-manager.machine.js';
import { EVICTION_MANAGER_EFFECTS, evictionManagerMachine } from '../machines/eviction-manager.machine.js';
import { NODE_SHUTDOWN_EFFECTS, nodeShutdownMachine } from '../machines/node-shutdown.machine.js';
import { PLUGIN_MANAGER_EFFECTS, pluginManagerMachine } from '../machines/plugin-manager.machine.js';
import { PLUGIN_REGISTRATION_EFFECTS, pluginRegistrationMachine } from '../machines/plugin-registration.machine.js';
import { DEVICE_MANAGER_EFFECTS, deviceManagerMachine } from '../machines/device-manager.machine.js';
import { DEVICE_PLUGIN_EFFECTS, devicePluginMachine } from '../machines/device-plugin.machine.js';

/** Every effectful actor src in the system, by the machine that invokes it. */
export const SUPERVISOR_EFFECTS = [...PHASE_IDS, 'stopSubsystems'] as const;
export const SYSTEM_EFFECTS: readonly string[] = [
  ...SUPERVISOR_EFFECTS,
  ...SYNC_LOOP_EFFECTS,
  ...RUNTIME_EFFECTS,
  ...POD_CONFIG_EFFECTS,
  ...PLEG_EFFECTS,
  ...POD_WORKER_EFFECTS,
  ...PROBE_EFFECTS,
  ...NODE_STATUS_EFFECTS,
  ...NODE_LEASE_EFFECTS,
  ...STATUS_MANAGER_EFFECTS,
  ...CERTIFICATE_MANAGER_EFFECTS,
  ...SERVING_CERTIFICATE_MANAGER_EFFECTS,
  ...VOLUME_MANAGER_EFFECTS,
  ...VOLUME_EFFECTS,
  ...CONTAINER_MANAGER_EFFECTS,
  ...EVICTION_MANAGER_EFFECTS,
  ...NODE_SHUTDOWN_EFFECTS,
  ...PLUGIN_MANAGER_EFFECTS,
  ...PLUGIN_REGISTRATION_EFFECTS,
  ...DEVICE_MANAGER_EFFECTS,
  ...DEVICE_PLUGIN_EFFECTS,
];

/** The actor logic a machine's `setup({ actors })` declares, by src: what `provide()` accepts. */
type ActorsOf<M extends AnyStateMachine> = NonNullable<Parameters<M['provide']>[0]['actors']>;
/** The named effects of one machine, every one required, each with the logic type its machine declares. */
type EffectsOf<M extends AnyStateMachine, Names extends readonly (keyof ActorsOf<M>)[]> = Required<Pick<ActorsOf<M>, Names[number]>>;

/**
 * The effects of the whole system. An effect whose input or output differs from what its machine
 * declares does not fit here, so the composition root cannot provide it (test/types/seams.test-d.ts).
 */
export type SystemEffects = EffectsOf<typeof supervisorMachine, typeof SUPERVISOR_EFFECTS>
  & EffectsOf<typeof syncLoopMachine, typeof SYNC_LOOP_EFFECTS>
  & EffectsOf<typeof runtimeMachine, typeof RUNTIME_EFFECTS>
  & EffectsOf<typeof podConfigMachine, typeof POD_CONFIG_EFFECTS>
  & EffectsOf<typeof plegMachine, typeof PLEG_EFFECTS>
  & EffectsOf<typeof podWorkerMachine, typeof POD_WORKER_EFFECTS>
  & EffectsOf<typeof probeMachine, typeof PROBE_EFFECTS>
  & EffectsOf<typeof nodeStatusMachine, typeof NODE_STATUS_EFFECTS>
  & EffectsOf<typeof nodeLeaseMachine, typeof NODE_LEASE_EFFECTS>
  & EffectsOf<typeof statusManagerMachine, typeof STATUS_MANAGER_EFFECTS>
  & EffectsOf<typeof certificateManagerMachine, typeof CERTIFICATE_MANAGER_EFFECTS>
  & EffectsOf<typeof servingCertificateManagerMachine, typeof SERVING_CERTIFICATE_MANAGER_EFFECTS>
  & EffectsOf<typeof volumeManagerMachine, typeof VOLUME_MANAGER_EFFECTS>
  & EffectsOf<typeof volumeMachine, typeof VOLUME_EFFECTS>
  & EffectsOf<typeof containerManagerMachine, typeof CONTAINER_MANAGER_EFFECTS>
  & EffectsOf<typeof evictionManagerMachine, typeof EVICTION_MANAGER_EFFECTS>
  & EffectsOf<typeof nodeShutdownMachine, typeof NODE_SHUTDOWN_EFFECTS>
  & EffectsOf<typeof pluginManagerMachine, typeof PLUGIN_MANAGER_EFFECTS>
  & EffectsOf<typeof pluginRegistrationMachine, typeof PLUGIN_REGISTRATION_EFFECTS>
  & EffectsOf<typeof deviceManagerMachine, typeof DEVICE_MANAGER_EFFECTS>
  & EffectsOf<typeof devicePluginMachine, typeof DEVICE_PLUGIN_EFFECTS>;

/**
 * Every effect inert, for replay: the log answers for them. An actor that never answers and never
 * sends fits every effect's input and output, which tsc cannot see through `inertActors`' list of
 * names; so this one cast stands for "each of these never produces a value".
 */
export function inertSystemEffects(): SystemEffects {
  return inertActors(SYSTEM_EFFECTS) as Partial<SystemEffects> as SystemEffects;
}

/** The effects one machine invokes, taken from the system's by name. */
function pick<T extends object, K extends keyof T>(effects: T, names: readonly K[]): Pick<T, K> {
  const out: Partial<Pick<T, K>> = {};
  for (const n of names) {
    const logic = effects[n];
    if (!logic) throw new Error(`effect ${String(n)} was not provided`);
    out[n] = logic;
  }
  // Every name was copied above; a loop over keys cannot tell tsc that Partial became whole.
  return out as Pick<T, K>;
}

/** Machines to use instead of the real ones (tests that show a changed machine is caught). */
export interface MachineOverrides {
  supervisor?: typeof supervisorMachine;
  syncLoop?: typeof syncLoopMachine;
  podConfig?: typeof podConfigMachine;
  pleg?: typeof plegMachine;
  podWorker?: typeof podWorkerMachine;
  probe?: typeof probeMachine;
  runtime?: typeof runtimeMachine;
  nodeStatus?: typeof nodeStatusMachine;
  nodeLease?: typeof nodeLeaseMachine;
  statusManager?: typeof statusManagerMachine;
  certificateManager?: typeof certificateManagerMachine;
  servingCertificateManager?: typeof servingCertificateManagerMachine;
  volumeManager?: typeof volumeManagerMachine;
  volume?: typeof volumeMachine;
  containerManager?: typeof containerManagerMachine;
  evictionManager?: typeof evictionManagerMachine;
  nodeShutdown?: typeof nodeShutdownMachine;
  pluginManager?: typeof pluginManagerMachine;
  pluginRegistration?: typeof pluginRegistrationMachine;
  deviceManager?: typeof deviceManagerMachine;
  devicePlugin?: typeof devicePluginMachine;
}

export function provideSystem(effects: SystemEffects, overrides: MachineOverrides = {}) {
  const syncLoop = (overrides.syncLoop ?? syncLoopMachine).provide({
    actors: {
      ...pick(effects, SYNC_LOOP_EFFECTS),
      podConfig: (overrides.podConfig ?? podConfigMachine).provide({ actors: pick(effects, POD_CONFIG_EFFECTS) }),
      pleg: (overrides.pleg ?? plegMachine).provide({ actors: pick(effects, PLEG_EFFECTS) }),
      podWorker: (overrides.podWorker ?? podWorkerMachine).provide({ actors: pick(effects, POD_WORKER_EFFECTS) }),
      probe: (overrides.probe ?? probeMachine).provide({ actors: pick(effects, PROBE_EFFECTS) }),
    },
  });
  return (overrides.supervisor ?? supervisorMachine).provide({
    actors: {
      ...pick(effects, SUPERVISOR_EFFECTS),
      runtime: (overrides.runtime ?? runtimeMachine).provide({ actors: pick(effects, RUNTIME_EFFECTS) }),
      nodeStatus: (overrides.nodeStatus ?? nodeStatusMachine).provide({ actors: pick(effects, NODE_STATUS_EFFECTS) }),
      nodeLease: (overrides.nodeLease ?? nodeLeaseMachine).provide({ actors: pick(effects, NODE_LEASE_EFFECTS) }),
      statusManager: (overrides.statusManager ?? statusManagerMachine).provide({ actors: pick(effects, STATUS_MANAGER_EFFECTS) }),
      certificateManager: (overrides.certificateManager ?? certificateManagerMachine).provide({ actors: pick(effects, CERTIFICATE_MANAGER_EFFECTS) }),
      servingCertificateManager: (overrides.servingCertificateManager ?? servingCertificateManagerMachine).provide({ actors: pick(effects, SERVING_CERTIFICATE_MANAGER_EFFECTS) }),
      volumeManager: (overrides.volumeManager ?? volumeManagerMachine).provide({
        actors: { ...pick(effects, VOLUME_MANAGER_EFFECTS), volume: (overrides.volume ?? volumeMachine).provide({ actors: pick(effects, VOLUME_EFFECTS) }) },
      }),
      containerManager: (overrides.containerManager ?? containerManagerMachine).provide({ actors: pick(effects, CONTAINER_MANAGER_EFFECTS) }),
      evictionManager: (overrides.evictionManager ?? evictionManagerMachine).provide({ actors: pick(effects, EVICTION_MANAGER_EFFECTS) }),
      nodeShutdown: (overrides.nodeShutdown ?? nodeShutdownMachine).provide({ actors: pick(effects, NODE_SHUTDOWN_EFFECTS) }),
      pluginManager: (overrides.pluginManager ?? pluginManagerMachine).provide({
        actors: { ...pick(effects, PLUGIN_MANAGER_EFFECTS), pluginRegistration: (overrides.pluginRegistration ?? pluginRegistrationMachine).provide({ actors: pick(effects, PLUGIN_REGISTRATION_EFFECTS) }) },
      }),
      deviceManager: (overrides.deviceManager ?? deviceManagerMachine).provide({
        actors: { ...pick(effects, DEVICE_MANAGER_EFFECTS), devicePlugin: (overrides.devicePlugin ?? devicePluginMachine).provide({ actors: pick(effects, DEVICE_PLUGIN_EFFECTS) }) },
      }),
      syncLoop,
    },
  });
}
