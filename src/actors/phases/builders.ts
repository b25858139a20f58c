/**
 * What the phases build from earlier phases' outputs, as factories the composition root wires
 * (src/bin/phase-builders.ts). The root decides how: the implementation, its clock and logger, the
 * host it works on (the node's files, the pods it counts). The phase decides when, and with what:
 * the CRI client, the loaded configuration, the API clients, the cgroup roots.
 */
import type { ContainerGcPolicy } from '../gc/container-gc.js';
import type { ImageGcPolicy } from '../gc/image-gc.js';
import type { LogRotatePolicy } from '../logs/container-log-manager.js';
import type { RuntimeManagerOptions } from '../runtime-manager/runtime-manager.js';
import type { ContainerManager, ContainerManagerOptions } from '../container-manager/container-manager.js';
import type { EventApi } from '../../ports/apiserver.js';
import type { CriClient } from '../../ports/cri.js';
import type { EventRecorder } from '../../ports/event-recorder.js';
import type { GarbageCollectors } from '../../ports/gc-host.js';
import type { RuntimeManager } from '../../ports/runtime-manager.js';

export interface PhaseBuilders {
  /** run.preInitRuntime: the connected CRI client, making each started container's legacy log link. */
  containerLogLinks(cri: CriClient): CriClient;
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
  containerManager(o: Omit<ContainerManagerOptions, 'activePods' | 'possiblyRunning' | 'logger'>): ContainerManager;
}
