/**
 * What the phases build from earlier phases' outputs, as factories the composition root wires
 * (src/bin/phase-builders.ts): the one place a phase gets a part from. The root decides how: the
 * implementation, its clock and logger, the host it works on (the node's files, the pods it
 * counts). The phase decides when, and with what: the CRI client, the loaded configuration, the API
 * clients, the cgroup roots.
 */
import type { ContainerGcPolicy } from '../gc/container-gc.js';
import type { ImageGcPolicy } from '../gc/image-gc.js';
import type { LogRotatePolicy } from '../logs/container-log-manager.js';
import type { RuntimeManagerOptions } from '../runtime-manager/runtime-manager.js';
import type { ContainerManager, ContainerManagerOptions } from '../container-manager/container-manager.js';
import type { CgroupDriver } from '../../domain/node/cgroup-roots.js';
import type { Pod } from '../../domain/pod/types.js';
import type { ApiClients, EventApi, NodeApi, ResourceClaimApi, RuntimeClassApi, ServiceApi } from '../../ports/apiserver.js';
import type { DraClaimManager } from '../../ports/dra-claims.js';
import type { CheckpointFiles } from '../../ports/resource-managers.js';
import type { CgroupManager } from '../../ports/cgroups.js';
import type { ImageCredentialProviders } from '../../ports/image-credentials.js';
import type { RuntimeClassInformer } from '../../ports/runtime-classes.js';
import type { VolumeHostFactory } from '../../ports/volume-host.js';
import type { CriClient } from '../../ports/cri.js';
import type { EventRecorder } from '../../ports/event-recorder.js';
import type { GarbageCollectors } from '../../ports/gc-host.js';
import type { RuntimeManager } from '../../ports/runtime-manager.js';

/** The Service informer started, and the pods' Service variables from what it lists. */
export interface ServiceEnvironment {
  /** A pod's Service variables; throws for a pod from the API server before the first list. */
  envFor(pod: Pod): ReadonlyMap<string, string>;
  /** Stops the informer. */
  stop(): void;
}

export interface PhaseBuilders {
  /** run.clients: the three API clients from a kubeconfig (client-node underneath). */
  apiClients(o: { kubeconfigPath: string; qps: number; burst: number; eventQps: number; eventBurst: number; heartbeatTimeoutMs: number }): Promise<ApiClients>;
  /** run.containerManager with cgroupsPerQOS: the host's cgroups (their version found on first use). */
  cgroups(driver: CgroupDriver): Promise<CgroupManager>;
  /** runKubelet.newMainKubelet: the ConfigMap, Secret and token managers and the volume plugins. */
  volumeHost: VolumeHostFactory;
  /** runKubelet.newMainKubelet in cluster mode: the Service informer (every namespace), for the Service variables. */
  serviceEnvironment(api: ServiceApi): ServiceEnvironment;
  /** runKubelet.newMainKubelet in cluster mode: the RuntimeClass informer, for the pods' runtime handlers. */
  runtimeClassInformer(api: RuntimeClassApi): RuntimeClassInformer;
  /**
   * runKubelet.newMainKubelet with --image-credential-provider-config or -bin-dir: the plugins, the
   * config validated; rejects (and the kubelet does not start) on any problem, as Go exits.
   */
  imageCredentialProviders?(configPath: string, binDir: string): Promise<ImageCredentialProviders>;
  /** run.preInitRuntime: the connected CRI client, making each started container's legacy log link. */
  containerLogLinks(cri: CriClient): CriClient;
  /**
   * runKubelet.newMainKubelet, cluster mode: the DRA claim manager (claims read with the main client,
   * prepared through the registered DRA plugins, checkpointed under the root dir), the node's
   * ResourceSlices wiped in the background as Go's DRA plugin manager does at start, and how to
   * stop both.
   */
  draClaimManager(o: { api: ResourceClaimApi & Pick<NodeApi, 'getNode'>; nodeName: string; rootDir: string; files: CheckpointFiles }): Promise<{ manager: DraClaimManager; close: () => void }>;
  /** runKubelet.newMainKubelet: the runtime manager over the connected CRI client. */
  runtimeManager(o: Omit<RuntimeManagerOptions, 'clock' | 'logger' | 'host'>): RuntimeManager;
  /** runKubelet.garbageCollection: both GC loops started; how to stop them and the collectors the eviction manager reclaims with. */
  garbageCollection(o: { cri: CriClient; podLogsDir: string; containers: ContainerGcPolicy; images: ImageGcPolicy }): { stop: () => void; collectors: GarbageCollectors };
  /** startKubelet.run: the container log manager started; how to stop it. */
  containerLogManager(o: { cri: CriClient; policy: LogRotatePolicy }): () => void;
  /** run.eventRecorder standalone: events only logged. */
  logEventRecorder(): EventRecorder;
  /** run.eventRecorder in cluster mode: events posted as the node `host`. */
  apiEventRecorder(o: { events: EventApi; host: string }): EventRecorder;
  /** run.containerManager: the container manager over the host's cgroups (or none). */
  containerManager(o: Omit<ContainerManagerOptions, 'activePods' | 'possiblyRunning' | 'sysctl' | 'logger'>): ContainerManager;
}
