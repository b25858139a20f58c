/**
 * What the phase actors need from the world: ports only (src/ports; the composition root in src/bin
 * builds the adapters), the factories of the parts they build from earlier phases' outputs
 * (`build`, builders.ts), plus `live`, the typed slots where phases leave the objects later phases
 * use (live-state.ts).
 */
import type { ContainerDeviceAllocator, DeviceCheckpointReader, DevicePluginHost } from '../../ports/device-plugins.js';
import type { KubeletConfiguration } from '../../domain/config/types.js';
import type { ConfigzBody } from '../../domain/config/configz.js';
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { Random } from '../../ports/random.js';
import type { ConfigSteps, NotHonoured } from '../../ports/config-steps.js';
import type { EvictionHost } from '../../ports/eviction-host.js';
import type { Logind } from '../../ports/logind.js';
import type { CsiDriverStore } from '../../ports/csi-drivers.js';
import type { DraDriverStore } from '../../ports/dra-drivers.js';
import type { PluginClients, PluginSocketWatcher } from '../../ports/plugin-registration.js';
import type { JournalOpener } from '../../ports/journal-opener.js';
import type { RuntimeConnector } from '../../ports/runtime-connector.js';
import type { DebugServerStarter, HealthzStarter, ServerStarter, ServingCertificates } from '../../ports/servers.js';
import type { PodResourcesServerStarter } from '../../ports/pod-resources.js';
import type { HostAddresses, HostnameSource, LockFile, MachineInfoSource, OomScoreWriter, SystemdNotifier } from '../../ports/host.js';
import type { ContainerLogHost } from '../../ports/container-logs.js';
import type { Lifetimes } from './lifetimes.js';
import type { LiveState } from './live-state.js';
import type { PhaseBuilders } from './builders.js';
import type { PhaseOutputs } from '../../machines/supervisor.machine.js';
import type { Pod } from '../../domain/pod/types.js';
import type { ResourceManagerHost } from '../../ports/resource-managers.js';
import type { DataDirectory } from '../../domain/node/data-directories.js';

export interface PhaseDeps {
  argv: string[];
  env: Record<string, string | undefined>;
  logger: Logger;
  clock: Clock;
  /** The node status and lease jitters. */
  random: Random;
  config: ConfigSteps;
  /** /configz's document: the effective config with secrets masked. */
  configzBody: (config: KubeletConfiguration, gates: Record<string, boolean>, notActedOn: readonly NotHonoured[]) => ConfigzBody;
  lockFile: LockFile;
  machineInfo: MachineInfoSource;
  oomScore: OomScoreWriter;
  systemd: SystemdNotifier;
  /** The systemd watchdog (startKubelet.run): this process's id, matched with WATCHDOG_PID, and healthz's checks, which gate each feed. */
  systemdWatchdog: { pid: number; checks: () => { name: string; problem: string | null }[] };
  hostname: HostnameSource;
  hostAddresses: HostAddresses;
  runtime: RuntimeConnector;
  debugServer: DebugServerStarter;
  journal: JournalOpener;
  healthz: HealthzStarter;
  servers: ServerStarter;
  /** The pod resources API's gRPC server (startKubelet.servers). */
  podResources: PodResourcesServerStarter;
  /** The legacy log links' directory, made by initializeModules. */
  containerLogs: Pick<ContainerLogHost, 'linkDir'>;
  /** The eviction manager's reads: the summary and the active pods. */
  eviction: EvictionHost;
  /** The node shutdown manager's logind, the active pods it stops, and its reconnect period (Go's when absent). */
  nodeShutdown: { logind: Logind; activePods: () => Pod[]; reconnectPeriodMs?: number };
  /** The volume stats analyzer, started by initializeModules at volumeStatsAggPeriod; answers how to stop it. */
  volumeStats?: { start: (periodMs: number) => () => void };
  /** The plugin manager's watcher and gRPC clients, and the CSI drivers it registers (read by the CSI volume plugin). */
  plugins: { watcher: PluginSocketWatcher; clients: PluginClients; drivers: CsiDriverStore; draDrivers: DraDriverStore };
  /** The device plugins: the Registration server and streams, the containers' Allocate answers, the checkpoint. */
  devices: DevicePluginHost & ContainerDeviceAllocator & DeviceCheckpointReader;
  /** The resource managers' state files and the CPU topology. */
  resourceManagers: ResourceManagerHost;
  /** initializeModules: create the kubelet's directories (mkdir -p), each made one getting its mode whatever the umask. */
  makeDirectories: (dirs: readonly DataDirectory[]) => Promise<void>;
  lifetimes: Lifetimes;
  live: LiveState;
  /** run.bootstrap: TLS bootstrap of the client certificate (Go's bootstrap.LoadClientCert). */
  bootstrapClientCert: (opts: { kubeconfigPath: string; bootstrapKubeconfigPath: string; certDir: string; nodeName: string; signal: AbortSignal; waiting: (reason: string) => void }) => Promise<PhaseOutputs['run.bootstrap']>;
  /**
   * startKubelet.run with rotateCertificates: the validity of the cert dir's current client pair when
   * --kubeconfig uses it (what the certificate manager renews), or why not.
   */
  currentClientCertificate: (kubeconfigPath: string, certDir: string) => Promise<{ notBeforeMs: number; notAfterMs: number } | { why: string }>;
  /** serverTLSBootstrap: the kubelet server's certificate, shared by the server and its certificate manager. */
  servingCertificates: ServingCertificates;
  /** Ask the supervisor for an orderly stop (lock contention does this). */
  requestStop: (reason: string) => void;
  /** Every part a phase builds from earlier phases' outputs (API clients, cgroups, volume host, informers, runtime manager, …), when it asks. */
  build: PhaseBuilders;
}
