/**
 * What phases build and later phases and effects use (the parsed command line, the effective
 * configuration, the CRI client, the API clients…), as one typed slot each. A slot names the phase
 * that sets it, so reading it too early is a KubeletBug that says which phase should have run.
 * None of this enters a machine: machines see only each phase's output (PhaseOutputs).
 */
import type { KubeletConfiguration } from '../../domain/config/types.js';
import type { ConfigzBody } from '../../domain/config/configz.js';
import { KubeletBug } from '../../domain/errors.js';
import type { PhaseId } from '../../domain/phases.js';
import type { ApiClients } from '../../ports/apiserver.js';
import type { ParsedArgs } from '../../ports/config-steps.js';
import type { CriClient } from '../../ports/cri.js';
import type { CsiVolumePlugin } from '../../ports/csi-volumes.js';
import type { EventRecorder } from '../../ports/event-recorder.js';
import type { GarbageCollectors } from '../../ports/gc-host.js';
import type { RuntimeManager } from '../../ports/runtime-manager.js';
import type { VolumeSources } from '../../ports/volume-sources.js';
import type { VolumePlugins } from '../../ports/volumes.js';
import type { ContainerManager } from '../container-manager/container-manager.js';
import type { DraClaimManager } from '../../ports/dra-claims.js';
import { FirstRegistration } from './first-registration.js';
import type { ResourceManagersRuntime } from '../resource-managers/resource-managers-actor.js';

export class LateSlot<T> {
  private value: T | undefined;

  constructor(readonly name: string, readonly setBy: PhaseId) {}

  set(value: T): void {
    this.value = value;
  }

  /** The value; a KubeletBug naming the phase that sets it when that phase has not run. */
  require(): T {
    if (this.value === undefined) throw new KubeletBug(`${this.name} was read before ${this.setBy} set it`);
    return this.value;
  }

  /** The value, or undefined before its phase, for readers to whom "not yet" means something. */
  peek(): T | undefined {
    return this.value;
  }
}

export interface LiveState {
  readonly parsed: LateSlot<ParsedArgs>;
  /** The effective configuration, defaulted: every field present. */
  readonly config: LateSlot<KubeletConfiguration>;
  /** Set from the flags by command.featureGates, then with the file's by command.loadConfigFile. */
  readonly gates: LateSlot<Record<string, boolean>>;
  /** /configz's document: the effective configuration with secrets masked. */
  readonly configz: LateSlot<ConfigzBody>;
  readonly cri: LateSlot<CriClient>;
  /** Built over `cri`; the pod workers call it. */
  readonly runtimeManager: LateSlot<RuntimeManager>;
  /** Cluster mode only: the DRA claim manager (the runtime manager prepares claims through it; the pod resources API reads it). */
  readonly draClaims: LateSlot<DraClaimManager>;
  /** Cluster mode only: the main, event and heartbeat clients. */
  readonly api: LateSlot<ApiClients>;
  /** To the API server in cluster mode, to the log standalone. */
  readonly events: LateSlot<EventRecorder>;
  /** The ConfigMap, Secret and token managers (every read refused standalone). */
  readonly volumeSources: LateSlot<VolumeSources>;
  /** The volume plugins the volume manager's effects call. */
  readonly volumePlugins: LateSlot<VolumePlugins>;
  /** The CSI volume plugin, for the volume stats' NodeGetVolumeStats. */
  readonly csiVolumes: LateSlot<CsiVolumePlugin>;
  /** QoS and pod cgroups (NewContainerManager); the containerManager machine and pod syncs use it. */
  readonly containerManager: LateSlot<ContainerManager>;
  /** The container and image collectors, for the eviction manager's node-level reclaim. */
  readonly garbageCollectors: LateSlot<GarbageCollectors>;
  /** The resource managers' live assignments and state files (cm.Start), for their effects and the container starter. */
  readonly resourceManagers: LateSlot<ResourceManagersRuntime>;
  /** Not a slot: answered by the nodeStatus machine's registration effect, awaited by startKubelet.servers. */
  readonly firstRegistration: FirstRegistration;
}

export function createLiveState(): LiveState {
  return {
    parsed: new LateSlot('the parsed command line', 'command.parse'),
    config: new LateSlot('the configuration', 'command.loadConfigFile'),
    gates: new LateSlot('the feature gates', 'command.featureGates'),
    configz: new LateSlot('the /configz document', 'run.configz'),
    cri: new LateSlot('the CRI client', 'run.preInitRuntime'),
    runtimeManager: new LateSlot('the runtime manager', 'runKubelet.newMainKubelet'),
    draClaims: new LateSlot('the DRA claim manager', 'runKubelet.newMainKubelet'),
    api: new LateSlot('the API clients', 'run.clients'),
    events: new LateSlot('the event recorder', 'run.eventRecorder'),
    volumeSources: new LateSlot('the ConfigMap, Secret and token managers', 'runKubelet.newMainKubelet'),
    volumePlugins: new LateSlot('the volume plugins', 'runKubelet.newMainKubelet'),
    csiVolumes: new LateSlot('the CSI volume plugin', 'runKubelet.newMainKubelet'),
    containerManager: new LateSlot('the container manager', 'run.containerManager'),
    garbageCollectors: new LateSlot('the garbage collectors', 'runKubelet.garbageCollection'),
    resourceManagers: new LateSlot('the resource managers', 'startKubelet.resourceManagers'),
    firstRegistration: new FirstRegistration(),
  };
}
