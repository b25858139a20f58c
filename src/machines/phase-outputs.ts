/**
 * What each start-up phase answers, by phase id: the supervisor stores these under
 * `context.outputs[phase]`, later phases read them, the journal records them. One map, so a phase
 * that answers the wrong shape and a phase that reads a field no phase writes both fail `tsc`.
 * Plain data only (the journal writes it as JSON).
 */
import type { KubeletConfiguration } from '../domain/config/types.js';
import type { CgroupRoots } from '../domain/node/cgroup-roots.js';
import type { CgroupDriverDecision } from '../domain/runtime/cgroup-driver-agreement.js';
import type { MachineInfo, OomScoreOutcome, SdNotifyOutcome } from '../domain/node/host-types.js';
import type { NodeIpResolution } from '../domain/node/node-ip.js';
import type { NodeName } from '../domain/node/node-name.js';
import type { PhaseId } from '../domain/phases.js';
import type { AllocatableResult } from '../domain/resources/allocatable.js';
import type { CertificateManagerInput } from './certificate-manager.machine.js';
import type { ContainerManagerInput } from './container-manager.machine.js';
import type { EvictionManagerInput } from './eviction-manager.machine.js';
import type { NodeLeaseMachineInput } from './node-lease.machine.js';
import type { NodeShutdownInput } from './node-shutdown.machine.js';
import type { NodeStatusMachineInput } from './node-status.machine.js';
import type { PluginManagerInput } from './plugin-manager.machine.js';
import type { DeviceManagerInput } from './device-manager.machine.js';
import type { RuntimeMachineInput } from './runtime.machine.js';
import type { StatusManagerInput } from './status-manager.machine.js';
import type { SyncLoopInput } from './sync-loop.machine.js';
import type { VolumeManagerInput } from './volume-manager.machine.js';
import type { Assignments } from '../domain/resource-managers/assignments.js';
import type { ResourceInventory } from '../domain/resource-managers/inventory.js';

/** Kubelet.Run's output: the long-lived subsystems' inputs, each in its machine's own Input type. */
export interface KubeletRunOutput {
  runtime?: RuntimeMachineInput;
  /** volumeManager.Run: the volumes of every pod, mounted before its containers start. */
  volumeManager?: VolumeManagerInput;
  /** ContainerManager.Start (on the first runtime-up), QoS updates and pod cgroup housekeeping. */
  containerManager?: ContainerManagerInput;
  syncLoop?: SyncLoopInput;
  /** Cluster mode only: node registration and status, the node lease, pod statuses to the API server. */
  nodeStatus?: NodeStatusMachineInput;
  nodeLease?: NodeLeaseMachineInput;
  statusManager?: StatusManagerInput;
  /** Cluster mode with rotateCertificates and a client certificate in the cert dir's store. */
  certificateManager?: CertificateManagerInput;
  /** Cluster mode with serverTLSBootstrap: the kubelet server's certificate, asked for and renewed. */
  servingCertificateManager?: CertificateManagerInput;
  /** The eviction manager, when any threshold is configured (both modes). */
  evictionManager?: EvictionManagerInput;
  /** The node shutdown manager, when a graceful shutdown is configured (both modes). */
  nodeShutdown?: NodeShutdownInput;
  /** The plugin manager: CSI drivers registered through plugins_registry (both modes; the CSINode in cluster mode). */
  pluginManager?: PluginManagerInput;
  /** The device manager: device plugins registered on kubelet.sock (both modes). */
  deviceManager?: DeviceManagerInput;
}

export interface PhaseOutputs {
  'command.parse': { given: string[] };
  'command.debugServer': { enabled: false } | { enabled: true; address: string };
  'command.featureGates': { gates: Record<string, boolean> };
  'command.validateFlags': { valid: true };
  /** `strictDecodingErrors`: the files' duplicated keys and unknown fields, logged; the configuration is the lenient decoding's. */
  'command.loadConfigFile': { config: KubeletConfiguration; strictDecodingErrors?: string[] };
  'command.validateConfig': { valid: true; notActedOn: string[] };
  'command.dependencies': { eventLog: string | null };
  'run.lockFile': { lockFile: null } | { lockFile: string; exitOnContention: boolean };
  'run.configz': { registered: true };
  'run.standalone': { standalone: boolean };
  'run.nodeName': NodeName;
  'run.bootstrap':
    | { bootstrap: 'none' | 'kubeconfig valid' }
    | { bootstrap: 'issued'; csr: string; certificateFile: string; notAfter: string };
  'run.clients':
    | { clients: 'none' }
    | { clients: string[]; server: string; qps: number; burst: number; heartbeatTimeoutMs: number };
  'run.auth': { authenticators: string[]; authorizer: string };
  /** CRI Version's answer, with the endpoint (`embedded` for the embedded runtime) and the attempts it took. */
  'run.preInitRuntime': { endpoint: string; attempts: number; version: string; runtime_name: string; runtime_version: string; runtime_api_version: string };
  /** The cgroup driver the container manager uses, and whether the runtime said it (RuntimeConfig) or only the configuration did. */
  'run.cgroupDriverFromCRI': CgroupDriverDecision;
  'run.cgroupRoots': CgroupRoots;
  'run.machineInfo': MachineInfo;
  'run.eventRecorder': { sink: 'log' | 'apiserver' };
  'run.containerManager': AllocatableResult;
  'run.oomScore': { score: number; outcome: OomScoreOutcome | 'failed' };
  'runKubelet.validateNodeIP': NodeIpResolution;
  /** podCIDR: the configured pod CIDR, when the runtime took it. */
  'runKubelet.newMainKubelet': { podLogsDir: string; parts: string[]; podCIDR?: string };
  'runKubelet.birthCry': { reason: string; message: string; sink: 'apiserver' | 'log' };
  'runKubelet.garbageCollection': {
    containerGC: { periodMs: number; minAgeMs: number; maxPerPodContainer: number; maxContainers: number };
    imageGC: { periodMs: number; highThresholdPercent: number; lowThresholdPercent: number; minAgeMs: number; maxAgeMs: number };
  };
  /** What admission allocates from, and the assignments the state files held. */
  'startKubelet.resourceManagers': { inventory: ResourceInventory; assignments: Assignments };
  'startKubelet.run': KubeletRunOutput;
  'startKubelet.servers': ({ servers: string } | { kubeletServer: string; readOnly: string }) & { podResources: string };
  'run.healthz': { healthz: string };
  'run.sdNotify': { outcome: SdNotifyOutcome };
}

/** Every phase has an entry, and no entry names a phase that does not exist. */
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const PHASE_OUTPUTS_COVER_EVERY_PHASE: Exactly<keyof PhaseOutputs, PhaseId> = true;
