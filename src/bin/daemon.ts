/**
 * The kubelet daemon: the composition root. Builds the adapters, gives them to the phase actors,
 * starts the supervisor with the journal tapping its inspection stream, turns SIGTERM/SIGINT into
 * `kubelet.stop.requested`, and waits for the supervisor to end: `stopped` exits 0, `failed` exits
 * 1 naming the phase and reason (with the usage for a bad command line).
 */
import { hostname as osHostname } from 'node:os';
import { createActor, waitFor, type Actor } from 'xstate';
import { Lifetimes } from '../actors/phases/lifetimes.js';
import type { PhaseDeps } from '../actors/phases/deps.js';
import { createLiveState, type LiveState } from '../actors/phases/live-state.js';
import { SummaryProvider } from '../actors/stats/summary-provider.js';
import { measureVolume } from '../actors/stats/measure-volume.js';
import { VolumeStatsAnalyzer } from '../actors/stats/volume-stats-analyzer.js';
import { mountedVolumesByPod } from '../domain/volume-manager/mounted-volumes.js';
import type { VolumeManagerContext } from '../machines/volume-manager.machine.js';
import { evictablePods } from '../actors/eviction/active-pods.js';
import { createKubeletView } from '../actors/view/kubelet-view.js';
import type { OperationCounts } from '../adapters/cri-grpc/instrumented.js';
import { makeDirectories, nodeGcFs } from '../adapters/fs/node-fs.js';
import { checkpointFiles } from '../adapters/host/checkpoint-files.js';
import { sysfsCpuTopology } from '../adapters/host/cpu-topology.js';
import { SysfsNumaTopology } from '../adapters/host/numa-topology.js';
import { createContainerLogFiles } from '../adapters/fs/container-log-files.js';
import { LEGACY_CONTAINER_LOGS_DIR } from '../domain/runtime/legacy-log-symlink.js';
import { ProcHostStats } from '../adapters/host/host-stats.js';
import { mathRandom } from '../adapters/math-random.js';
import { systemClock } from '../adapters/system-clock.js';
import { startHeapTrimmer } from '../adapters/host/heap-trim.js';
import { DEFAULT_POD_LOGS_DIR } from '../domain/config/defaults.js';
import { DEFAULT_KUBELET_FLAGS } from '../domain/config/flag-table.js';
import { formatUsage } from '../domain/config/usage.js';
import { KUBELET_TS_VERSION } from '../domain/config/version.js';
import { activePhase, type SupervisorContext } from '../machines/supervisor.machine.js';
import { actorLogger, createRootLogger, type Logger } from '../log.js';
import type { Clock } from '../ports/clock.js';
import { configzBody, createConfigSteps } from './config-steps.js';
import { CONTAINER_MANAGER_START_FAILED, createEffects } from './effects.js';
import { createHealthChecks } from './health-checks.js';
import { createHostPorts } from './host-ports.js';
import { createJournalOpener } from './journal-opener.js';
import { machinesSha256 } from './machines.js';
import { createObservers } from './observers.js';
import { createRuntimeConnector } from './runtime-connector.js';
import { debugServerStarter, healthzStarter, kubeletServerStarter, podResourcesStarter } from './server-starters.js';
import { podResourcesSource } from '../actors/view/pod-resources-source.js';
import { noPodResourcesRequests, type PodResourcesRequests } from '../domain/pod-resources/request-metrics.js';
import { provideSystem } from './system.js';
import { kubeletUserAgent } from '../adapters/apiserver/user-agent.js';
import { ServingCertificateSwitch } from '../adapters/certificates/serving-switch.js';
import { createLogindBus } from '../adapters/logind/logind-bus.js';
import { createCsiDriverRegistry } from '../adapters/csi/csi-driver-registry.js';
import { createDraDriverRegistry } from '../adapters/dra/dra-driver-registry.js';
import { createPluginSocketWatcher } from '../adapters/csi/plugin-socket-watcher.js';
import type { MachineInfo } from '../domain/node/host-types.js';
import { syncLoopPods } from './cgroups.js';
import { phaseBuilders } from './phase-builders.js';
import { lazyPluginClients } from './plugin-clients.js';
import { lazyDevicePluginHost } from './device-plugin-host.js';
import type { DevicePluginMetrics } from '../ports/device-plugins.js';

type SupervisorActor = Actor<ReturnType<typeof provideSystem>>;

export interface DaemonIo {
  stderr: (s: string) => void;
  env: Record<string, string | undefined>;
  /** Subscribe to process signals; returns an unsubscribe. Tests pass their own. */
  onSignal: (handler: (signal: string) => void) => () => void;
}

export const processIo: DaemonIo = {
  stderr: (s) => process.stderr.write(s),
  env: process.env,
  onSignal: (handler) => {
    const on = (sig: NodeJS.Signals) => () => handler(sig);
    const term = on('SIGTERM');
    const int = on('SIGINT');
    process.on('SIGTERM', term);
    process.on('SIGINT', int);
    return () => {
      process.off('SIGTERM', term);
      process.off('SIGINT', int);
    };
  },
};

/** --v before the configuration is loaded: the logger must exist from the first phase. */
function peekVerbosity(argv: readonly string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const m = /^--?v(?:=(\d+))?$/.exec(argv[i]!);
    if (m) return Number(m[1] ?? argv[i + 1] ?? 0) || 0;
  }
  return 0;
}

export async function runDaemon(argv: string[], io: DaemonIo = processIo): Promise<number> {
  const startTime = new Date();
  const clock = systemClock;
  const logger = createRootLogger({ verbosity: peekVerbosity(argv) });
  const live = createLiveState();
  const observers = createObservers(clock, logger, () => live.events.peek());
  const lifetimes = new Lifetimes(clock);
  let supervisor: SupervisorActor | null = null;
  // Set by command.dependencies when the event log is on; closed after the supervisor's last record.
  const journalFile: { path?: string; close?: () => Promise<void> } = {};

  const runtimeCalls: OperationCounts = { calls: new Map() };
  const host = new ProcHostStats();
  const volumeStats = createVolumeStatsAnalyzer(live, clock, host, () => observers.views.volumeManager(), logger);
  const stats = createSummaryProvider(live, clock, host, () => nodeNameOf(supervisor), volumeStats);
  const podResourcesRequests = noPodResourcesRequests();
  const devices = lazyDevicePluginHost({ logger: actorLogger(logger, 'deviceManager', 'deviceManager'), nowMs: () => clock.now() });
  const view = createDaemonView({ live, observers, runtimeCalls, clock, stats, volumeStats, podResourcesRequests, machineInfo: () => machineInfoOf(supervisor), devices });
  const healthChecks = createHealthChecks(observers.directory, observers.views, () => live.config.peek(), clock);
  const opener = createJournalOpener({
    sink: observers.journal,
    kubeletVersion: KUBELET_TS_VERSION,
    machinesSha256: machinesSha256(),
    startTime,
    onError: (err) => logger.error({ err }, 'Event log write failed; the journal is now off'),
    maxSegmentBytes: segmentBytesFrom(io.env, logger),
    // The sink calls this between two of its writes, outside any actor's step: the snapshot is the
    // system as of the last record journaled.
    onRotate: () => {
      if (supervisor) observers.checkpoint(supervisor);
    },
  });
  const servingCertificates = new ServingCertificateSwitch();
  // Filled by the plugin manager's registrations, read by the CSI volume plugin.
  const csiDrivers = createCsiDriverRegistry();
  // Filled by the plugin manager's DRA registrations.
  const draDrivers = createDraDriverRegistry();
  const { runtimeHost, ...hostPorts } = createHostPorts(io.env, logger);
  const containerLogs = { files: createContainerLogFiles(logger), linkDir: io.env[LEGACY_LOG_DIR_ENV] || LEGACY_CONTAINER_LOGS_DIR };
  const deps: PhaseDeps = {
    argv,
    env: io.env,
    logger,
    clock,
    random: mathRandom,
    config: createConfigSteps(),
    configzBody,
    ...hostPorts,
    systemdWatchdog: { pid: process.pid, checks: () => healthChecks.map((c) => ({ name: c.name, problem: c.check() })) },
    hostname: { hostname: () => osHostname() },
    runtime: createRuntimeConnector(logger, runtimeCalls),
    debugServer: debugServerStarter(observers, logger, () => journalFile.path ?? null),
    journal: {
      disable: () => opener.disable(),
      open: async (o) => {
        const opened = await opener.open(o);
        journalFile.close = opened.close;
        journalFile.path = opened.path;
        logger.info({ path: opened.path }, 'Event log opened');
        return opened;
      },
    },
    healthz: healthzStarter(healthChecks),
    servers: kubeletServerStarter({ live, view, healthChecks, clock, logger, servingCertificates }),
    podResources: podResourcesStarter({ source: podResourcesSource(observers.views.syncLoop, () => (live.gates.peek()?.KubeletPodResourcesDynamicResources === false ? undefined : live.draClaims.peek())), requests: podResourcesRequests, clock, logger }),
    servingCertificates,
    containerLogs,
    // The eviction manager shares the servers' summary reads (coalesced, at most one a second).
    eviction: { summary: () => stats.get(false), nodeSummary: () => stats.nodeOnly(), activePods: () => evictablePods(observers.views.syncLoop()) },
    nodeShutdown: {
      logind: createLogindBus({ env: io.env, uid: process.getuid?.() ?? 0, logger, ...logindConfigDirectory(io.env) }),
      activePods: () => evictablePods(observers.views.syncLoop()),
      ...dbusReconnectPeriod(io.env, logger),
    },
    plugins: { watcher: createPluginSocketWatcher(actorLogger(logger, 'pluginWatcher', 'pluginManager')), clients: lazyPluginClients(), drivers: csiDrivers, draDrivers },
    devices,
    makeDirectories,
    resourceManagers: {
      files: checkpointFiles, cpuTopology: sysfsCpuTopology(), numaTopology: new SysfsNumaTopology(),
      activePodUids: () => evictablePods(observers.views.syncLoop()).map((p) => p.metadata.uid),
    },
    volumeStats,
    lifetimes,
    live,
    bootstrapClientCert: async (o) => {
      const { loadClientCert } = await import('../adapters/certificates/client-bootstrap.js');
      const log = actorLogger(logger, 'bootstrap', 'certificates');
      return loadClientCert({ ...o, clock, userAgent: kubeletUserAgent(), log: (msg, fields) => log.info(fields ?? {}, msg) });
    },
    currentClientCertificate: async (kubeconfigPath, certDir) => (await import('../adapters/certificates/current-client-pair.js')).currentClientPair(kubeconfigPath, certDir),
    requestStop: (reason) => supervisor?.send({ type: 'kubelet.stop.requested', signal: reason }),
    build: phaseBuilders({
      clock,
      logger,
      runtimeHost,
      gc: {
        activePods: () => {
          const ctx = observers.views.syncLoop();
          return ctx?.sourcesReady ? new Set(Object.keys(ctx.pods)) : null;
        },
        ...nodeGcFs,
      },
      containerLogs,
      pods: syncLoopPods(observers.views.syncLoop),
      csiDrivers,
      draDrivers,
    }),
  };

  let countedPods: object | undefined;
  const heapTrimmer = startHeapTrimmer(clock, {
    onTrim: (before, after, why) => logger.debug({ beforeMiB: mib(before), afterMiB: mib(after), why }, 'Heap trimmed'),
  });
  const actor = createActor(provideSystem(createEffects(deps)), {
    input: { argv, stopTimeoutMs: 20_000 },
    systemId: 'supervisor',
    clock: observers.lag.clock,
    inspect: (ev) => {
      observers.inspect(ev);
      // The trimmer follows the node's pod count: the syncLoop's pods, as the directory just kept them
      // (counted only when the map is a new one: most of the syncLoop's steps leave it as it was).
      if (ev.type === '@xstate.snapshot' && ev.snapshot === observers.directory.snapshot('syncLoop')) {
        const pods = observers.views.syncLoop()?.pods;
        if (pods && pods !== countedPods) heapTrimmer.podCount(Object.keys(countedPods = pods).length);
      }
    },
  });
  supervisor = actor;
  logPhases(actor, logger);
  const unsubscribe = io.onSignal((signal) => actor.send({ type: 'kubelet.stop.requested', signal }));
  actor.start();

  const final = await waitFor(actor, (s) => s.status !== 'active', { timeout: Infinity });
  unsubscribe();
  observers.eventLoop.stop();
  heapTrimmer.stop();
  if (final.value === 'failed') {
    // A failed phase skips the orderly stop: close what start-up had opened.
    await lifetimes.closeAll(5000);
  }
  await observers.journal.flush();
  await journalFile.close?.();
  return reportExit(final.context, io, logger);
}

const mib = (bytes: number) => Math.round(bytes / 104_857.6) / 10;

/** run.nodeName's answer, once that phase has run. */
function nodeNameOf(supervisor: SupervisorActor | null): string | undefined {
  return supervisor?.getSnapshot().context.outputs['run.nodeName']?.nodeName;
}

/** run.machineInfo's answer, once that phase has run. */
function machineInfoOf(supervisor: SupervisorActor | null): MachineInfo | undefined {
  return supervisor?.getSnapshot().context.outputs['run.machineInfo'];
}

/**
 * The volume stats, measured in the background from the volume manager's mounted volumes. CSI
 * volumes are not measured until the CSI volume plugin is handed over here.
 */
function createVolumeStatsAnalyzer(live: LiveState, clock: Clock, host: ProcHostStats, volumeManager: () => VolumeManagerContext | undefined, logger: Logger): VolumeStatsAnalyzer {
  return new VolumeStatsAnalyzer({
    clock,
    random: mathRandom,
    pods: () => {
      const state = volumeManager();
      return state ? mountedVolumesByPod(state) : [];
    },
    measure: (podUid, volume) => measureVolume(podUid, volume, {
      host,
      csi: () => live.csiVolumes.peek(),
      csiVolumeHealth: live.gates.peek()?.CSIVolumeHealth ?? false,
      nowMs: () => clock.now(),
    }),
    logger: actorLogger(logger, 'volumeStats', 'volumeStats'),
  });
}

/** /stats/summary's reads, shared by the kubelet server and the eviction manager. */
function createSummaryProvider(live: LiveState, clock: Clock, host: ProcHostStats, nodeName: () => string | undefined, volumeStats: VolumeStatsAnalyzer): SummaryProvider {
  return new SummaryProvider({
    cri: () => live.cri.peek(),
    host,
    volumeStats: () => volumeStats.all(),
    nodeName: () => nodeName() ?? osHostname(),
    rootDir: () => live.parsed.peek()?.flags.rootDirectory ?? DEFAULT_KUBELET_FLAGS.rootDirectory,
    // Before command.loadConfigFile, the default, as the configuration would say.
    podLogsDir: () => live.config.peek()?.podLogsDir ?? DEFAULT_POD_LOGS_DIR,
  }, { now: () => clock.now() });
}

/** The kubelet as its servers read it: pods, stats, metrics, configz, logs, exec. */
function createDaemonView(o: { live: LiveState; observers: ReturnType<typeof createObservers>; runtimeCalls: OperationCounts; clock: Clock; stats: SummaryProvider; volumeStats: VolumeStatsAnalyzer; podResourcesRequests: PodResourcesRequests; machineInfo: () => MachineInfo | undefined; devices: { metrics: DevicePluginMetrics } }) {
  const { live, observers, runtimeCalls, clock, stats } = o;
  return createKubeletView({
    syncLoop: observers.views.syncLoop,
    pleg: observers.views.pleg,
    configz: () => live.configz.peek() ?? { kubeletconfig: {} },
    metrics: observers.metrics,
    probeMetrics: observers.probeMetrics,
    execSync: () => {
      const cri = live.cri.peek();
      return cri ? (id, cmd, timeoutSeconds) => cri.runtime.execSync(id, cmd, timeoutSeconds) : undefined;
    },
    runtimeCalls: () => runtimeCalls.calls,
    streaming: () => live.cri.peek()?.runtime,
    statsSummary: (onlyCpuAndMemory) => stats.get(onlyCpuAndMemory),
    volumeStats: () => o.volumeStats.all(),
    podResourcesRequests: () => o.podResourcesRequests,
    machineInfo: o.machineInfo,
    devicePlugins: () => o.devices.metrics,
    clock,
    metricsMaxAgeMs: 1000,
    lags: () => ({
      syncLoop: { durationsMs: observers.lag.histogram, recentMaxMs: observers.lag.recentMaxMs() },
      eventLoop: { durationsMs: observers.eventLoop.histogram, recentMaxMs: observers.eventLoop.recentMaxMs() },
    }),
  });
}

function reportExit(context: SupervisorContext, io: DaemonIo, logger: Logger): number {
  if (context.failure) {
    const { phase, error } = context.failure;
    logger.error({ phase, code: error.code, reason: error.message }, 'Start-up failed');
    io.stderr(`kubelet-ts: start-up failed in phase ${phase}: ${error.code}: ${error.message}\n`);
    if (phase === 'command.parse') io.stderr(`\n${formatUsage()}`);
    return 1;
  }
  logger.info({ signal: context.stop?.signal, outcome: context.stopOutcome }, 'Kubelet stopped');
  if (context.stop?.signal.startsWith(CONTAINER_MANAGER_START_FAILED)) {
    io.stderr(`kubelet-ts: ${context.stop.signal}\n`);
    return 1;
  }
  return 0;
}

/**
 * One info line per phase entered (the start-up as a person follows it), and once running, one
 * line that says where to look: the pods, their logs, the event log, healthz.
 */
function logPhases(actor: SupervisorActor, logger: Logger): void {
  let last: string | null = null;
  let lastWaiting: string | null = null;
  actor.subscribe({
    next: (s) => {
      const waiting = s.context.waiting;
      // What a phase waits on, once per new reason (Go logs its waits too: the runtime, the CSR).
      if (waiting && waiting.reason !== lastWaiting) logger.info({ phase: waiting.phase, reason: waiting.reason }, 'Start-up phase waiting');
      lastWaiting = waiting?.reason ?? null;
      const phase = activePhase(s.value) ?? (typeof s.value === 'string' ? s.value : null);
      if (!phase || phase === last) return;
      last = phase;
      logger.info({ phase }, 'Start-up phase');
      if (phase === 'running') logger.info(whereToLook(s.context), 'Kubelet running');
    },
    error: () => {},
  });
}

function whereToLook(context: SupervisorContext) {
  const out = context.outputs;
  const debugServer = out['command.debugServer'];
  const debug = debugServer?.enabled ? debugServer.address : undefined;
  return {
    pods: debug ? `http://${debug}/debug/pods` : 'the debug server is off (--debug-address)',
    actors: debug ? `http://${debug}/debug/actors` : undefined,
    podLogsDir: out['command.loadConfigFile']?.config.podLogsDir,
    eventLog: out['command.dependencies']?.eventLog ?? 'off',
    healthz: out['run.healthz']?.healthz,
  };
}

/** Where the legacy container log links go instead of /var/log/containers: tests keep them in their own directory. */
export const LEGACY_LOG_DIR_ENV = 'KUBELET_TS_LEGACY_LOG_DIR';

/**
 * KUBELET_TS_EVENT_LOG_SEGMENT_BYTES: the journal's segment size (default 64 MiB), for tests and
 * soak runs that want rotations (and their checkpoints) sooner. Not a kubelet flag: Go has no journal.
 */
function segmentBytesFrom(env: Record<string, string | undefined>, logger: Logger): number | undefined {
  return positiveWholeNumber(env, 'KUBELET_TS_EVENT_LOG_SEGMENT_BYTES', logger, 'bytes; using 64 MiB');
}

/**
 * KUBELET_TS_DBUS_RECONNECT_PERIOD_MS: the node shutdown manager's reconnect period (default Go's
 * 1 s), for tests that watch for a retry without waiting a whole period. Not a kubelet flag.
 */
function dbusReconnectPeriod(env: Record<string, string | undefined>, logger: Logger): { reconnectPeriodMs?: number } {
  const ms = positiveWholeNumber(env, 'KUBELET_TS_DBUS_RECONNECT_PERIOD_MS', logger, 'milliseconds; using 1 s');
  return ms === undefined ? {} : { reconnectPeriodMs: ms };
}

function positiveWholeNumber(env: Record<string, string | undefined>, name: string, logger: Logger, otherwise: string): number | undefined {
  const text = env[name];
  if (text === undefined) return undefined;
  const n = Number(text);
  if (Number.isSafeInteger(n) && n > 0) return n;
  logger.warn({ value: text }, `${name} is not a positive whole number of ${otherwise}`);
  return undefined;
}

/** Where logind's drop-in goes: Go's fixed directory, or KUBELET_TS_LOGIND_CONF_DIR (tests on a private bus). */
function logindConfigDirectory(env: Record<string, string | undefined>): { configDirectory?: string } {
  const dir = env.KUBELET_TS_LOGIND_CONF_DIR;
  return dir ? { configDirectory: dir } : {};
}
