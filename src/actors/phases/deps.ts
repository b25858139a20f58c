/**
 * What the phase actors need from the world: ports only (the composition root in src/bin builds
 * the adapters), plus `live`, where phases leave the objects later phases use (the parsed command
 * line, the effective configuration, the CRI client). Those never enter a machine: machines see
 * only each phase's JSON output.
 */
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { ApiClients } from '../../ports/apiserver.js';
import type { EventRecorder } from '../api-pods/event-recorder.js';
import type { CriClient } from '../../ports/cri.js';
import type { HostAddresses, HostnameSource, LockFile, MachineInfoSource, OomScoreWriter, SystemdNotifier } from '../../ports/host.js';
import type { RuntimeManager } from '../runtime-manager/runtime-manager.js';
import type { Lifetimes } from './lifetimes.js';

export interface FieldError {
  field: string;
  message: string;
  value?: unknown;
}

/** The command line as parsed: kubelet flags by their Go field names, and which flags were given. */
export interface ParsedArgs {
  flags: Record<string, unknown>;
  given: string[];
}

/** The configuration loader's steps, in the Go kubelet's order (NewKubeletCommand). */
export interface ConfigSteps {
  parse(argv: string[]): ParsedArgs;
  featureGates(parsed: ParsedArgs): Record<string, boolean>;
  validateFlags(parsed: ParsedArgs): FieldError[];
  load(parsed: ParsedArgs): Promise<{ config: Record<string, unknown>; gates: Record<string, boolean> }>;
  validateConfig(config: Record<string, unknown>, gates: Record<string, boolean>): FieldError[];
}

export interface RuntimeConnector {
  /** Start the embedded CRI runtime under rootDir; returns its endpoint. */
  startEmbedded(rootDir: string): Promise<{ endpoint: string; close: () => Promise<void> }>;
  connect(opts: { endpoint: string; imageEndpoint?: string; runtimeRequestTimeoutMs: number }): CriClient;
}

export interface DebugServerStarter {
  start(address: string): Promise<{ address: string; listening?: boolean; close: () => Promise<void> }>;
}

export interface JournalOpener {
  /** Open the event log once its place is known: header written, early records flushed. */
  open(opts: { path: string; nodeName: string; config: Record<string, unknown> }): Promise<{ path: string; close: () => Promise<void> }>;
  /** The journal is off (--event-log=): drop what was kept. */
  disable(): void;
}

/** The kubelet server (10250, TLS, authn/authz) and the read-only port, over the live kubelet. */
export interface ServerStarter {
  startKubelet(opts: {
    address: string;
    port: number;
    tls: { certFile?: string; keyFile?: string; certDir: string; hostname: string; nodeIPs: string[]; minVersion?: string; cipherSuites?: string[] };
    auth: { anonymous: boolean; clientCAFile?: string; authorizationMode: 'AlwaysAllow' | 'Webhook'; nodeName: string };
    /** Webhook authentication/authorization through the API server (cluster mode), with Go's cache TTLs. */
    webhook?: { authentication: boolean; authorization: boolean; tokenTtlMs: number; authorizedTtlMs: number; unauthorizedTtlMs: number };
    debuggingHandlers: boolean;
    /** enableSystemLogHandler: `/logs/` (only with the debugging handlers, as Go). */
    systemLogHandler: boolean;
  }): Promise<{ address: string; close: () => Promise<void> }>;
  startReadOnly(opts: { address: string; port: number }): Promise<{ address: string; close: () => Promise<void> }>;
}

export interface HealthzStarter {
  start(host: string, port: number): Promise<{ address: string; close: () => Promise<void> }>;
}

/** What the garbage collectors need from outside the CRI. */
export interface GcHost {
  /** UIDs of the pods the syncLoop has; null until every pod source has been seen. */
  activePods: () => ReadonlySet<string> | null;
  listDirs: (dir: string) => Promise<string[]>;
  removeDir: (path: string) => Promise<void>;
  fsUsage: (path: string) => Promise<{ capacityBytes: number; availableBytes: number }>;
}

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
