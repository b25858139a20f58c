/**
 * What the phase actors need from the world: ports only (src/ports; the composition root in src/bin
 * builds the adapters), plus `live`, where phases leave the objects later phases use (the parsed command
 * line, the effective configuration, the CRI client). Those never enter a machine: machines see
 * only each phase's JSON output.
 */
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { Random } from '../../ports/random.js';
import type { ApiClients } from '../../ports/apiserver.js';
import type { EventRecorder } from '../api-pods/event-recorder.js';
import type { CriClient } from '../../ports/cri.js';
import type { ConfigSteps, ParsedArgs } from '../../ports/config-steps.js';
import type { GcHost } from '../../ports/gc-host.js';
import type { JournalOpener } from '../../ports/journal-opener.js';
import type { RuntimeConnector } from '../../ports/runtime-connector.js';
import type { DebugServerStarter, HealthzStarter, ServerStarter } from '../../ports/servers.js';
import type { HostAddresses, HostnameSource, LockFile, MachineInfoSource, OomScoreWriter, SystemdNotifier } from '../../ports/host.js';
import type { RuntimeManager } from '../runtime-manager/runtime-manager.js';
import type { Lifetimes } from './lifetimes.js';

export interface LiveState {
  parsed?: ParsedArgs;
  config?: Record<string, unknown>;
  gates?: Record<string, boolean>;
  configz?: Record<string, unknown>;
  cri?: CriClient;
  /** Built in runKubelet.newMainKubelet over `cri`; the pod workers call it. */
  runtimeManager?: RuntimeManager;
  /** Cluster mode: the main, event and heartbeat clients built in run.clients. */
  api?: ApiClients;
  /** run.eventRecorder: to the API server in cluster mode, to the log standalone. */
  events?: EventRecorder;
}

export interface PhaseDeps {
  argv: string[];
  env: Record<string, string | undefined>;
  logger: Logger;
  clock: Clock;
  /** The node status and lease jitters. */
  random: Random;
  config: ConfigSteps;
  /** /configz's document: the effective config with secrets masked. */
  maskForConfigz: (config: Record<string, unknown>) => Record<string, unknown>;
  lockFile: LockFile;
  machineInfo: MachineInfoSource;
  oomScore: OomScoreWriter;
  systemd: SystemdNotifier;
  hostname: HostnameSource;
  hostAddresses: HostAddresses;
  runtime: RuntimeConnector;
  debugServer: DebugServerStarter;
  journal: JournalOpener;
  healthz: HealthzStarter;
  servers: ServerStarter;
  gc: GcHost;
  /** initializeModules: create the kubelet's directories (mkdir -p). */
  makeDirectories: (paths: string[]) => Promise<void>;
  lifetimes: Lifetimes;
  live: LiveState;
  /** run.clients: the three API clients from a kubeconfig (client-node underneath). */
  createApiClients: (opts: { kubeconfigPath: string; qps: number; burst: number; eventQps: number; eventBurst: number; heartbeatTimeoutMs: number }) => Promise<ApiClients>;
  /** Ask the supervisor for an orderly stop (lock contention does this). */
  requestStop: (reason: string) => void;
}
