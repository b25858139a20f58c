/**
 * The kubelet daemon: the composition root. Builds the adapters, gives them to the phase actors,
 * starts the supervisor with the journal tapping its inspection stream, turns SIGTERM/SIGINT into
 * `kubelet.stop.requested`, and waits for the supervisor to end: `stopped` exits 0, `failed` exits
 * 1 naming the phase and reason (with the usage for a bad command line).
 */
import { readdir, rm, statfs } from 'node:fs/promises';
import { makeDirectories } from '../adapters/fs/make-directories.js';
import { hostname as osHostname } from 'node:os';
import { createActor, waitFor, type AnyActorRef, type InspectionEvent } from 'xstate';
import { relayAdmissionRejections } from '../actors/api-pods/admission-events.js';
import { ActorDirectory } from '../actors/debug/actor-directory.js';
import { createInspectionTap } from '../actors/journal/inspection-tap.js';
import { Lifetimes } from '../actors/phases/lifetimes.js';
import type { PhaseDeps } from '../actors/phases/deps.js';
import { startDebugServer } from '../adapters/debug-server/server.js';
import { startHealthz, type HealthCheck } from '../adapters/http/healthz.js';
import { startKubeletServer, startReadOnlyServer } from '../adapters/http/kubelet-server/server.js';
import type { OperationCounts } from '../adapters/cri-grpc/instrumented.js';
import { MetricsCollector } from '../actors/view/metrics-collector.js';
import { SyncLoopLagMeter } from '../actors/view/sync-loop-lag.js';
import { startEventLoopDelayMeter } from '../adapters/host/event-loop-delay.js';
import { ProbeMetricsCollector } from '../actors/view/probe-metrics-collector.js';
import { createKubeletView } from '../actors/view/kubelet-view.js';
import { SummaryProvider } from '../actors/stats/summary-provider.js';
import { settings } from '../actors/phases/settings.js';
import { ProcHostStats } from '../adapters/host/host-stats.js';
import { createApiReviewers } from '../actors/view/api-reviewers.js';
import { JournalFeed } from '../adapters/debug-server/journal-feed.js';
import { machineGraphs } from './commands/graph.js';
import { DeferredJournalSink } from '../adapters/journal-file/deferred-sink.js';
import { systemClock } from '../adapters/system-clock.js';
import { KUBELET_TS_VERSION } from '../domain/config/version.js';
import { parseGoDuration } from '../domain/config/duration.js';
import { activePhase, type SupervisorContext } from '../machines/supervisor.machine.js';
import type { SyncLoopContext } from '../machines/sync-loop.machine.js';
import { createEffects } from './effects.js';
import { provideSystem } from './system.js';
import { actorLogger, createRootLogger, type Logger } from '../log.js';
import { createConfigSteps, maskForConfigz } from './config-steps.js';
import { createHostPorts } from './host-ports.js';
import { createJournalOpener } from './journal-opener.js';
import { machinesSha256 } from './machines.js';
import { createRuntimeConnector } from './runtime-connector.js';
import { formatUsage } from '../domain/config/usage.js';

/** What `/logs/` serves, as Go's kubelet: the node's log directory. */
const SYSTEM_LOG_DIR = '/var/log';

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
  const journal = new DeferredJournalSink();
  // The visualizer's live stream: every record, bounded per browser, never slowing the actors.
  const feed = new JournalFeed();
  journal.subscribe(feed.append);
  const tap = createInspectionTap({ clock, onRecord: journal.append });
  const directory = new ActorDirectory(clock, tap.stableId);
  const lifetimes = new Lifetimes();
  let supervisor: AnyActorRef | null = null;
  let journalClose: (() => Promise<void>) | null = null;

  const runtimeCalls: OperationCounts = { calls: new Map() };
  const processStartMs = clock.now() - Math.round(process.uptime() * 1000);
  const metrics = new MetricsCollector(clock, tap.stableId, processStartMs);
  const syncLoopContext = () => (directory.snapshot('syncLoop') as { context?: SyncLoopContext } | undefined)?.context;
  const probeMetrics = new ProbeMetricsCollector(clock, tap.stableId, (uid) => syncLoopContext()?.pods[uid]?.pod.metadata, processStartMs);
  // The actor system's timers run on the lag meter's clock, which stamps each with its due time.
  const lag = new SyncLoopLagMeter(clock, tap.stableId);
  const eventLoop = startEventLoopDelayMeter(clock);
  const live: PhaseDeps['live'] = {};
  const stats = new SummaryProvider({
    cri: () => live.cri,
    host: new ProcHostStats(),
    nodeName: () => nodeNameOf(supervisor) ?? osHostname(),
    rootDir: () => (live.parsed ? settings.rootDir(live) : '/var/lib/kubelet'),
    podLogsDir: () => String(live.config?.podLogsDir ?? '/var/log/pods'),
  });
  const view = createKubeletView({
    syncLoop: syncLoopContext,
    pleg: () => (directory.snapshot('pleg') as { context?: { lastRelistAtMs?: number | null; discardedEvents?: number } } | undefined)?.context,
    configz: () => (live.configz ?? { kubeletconfig: {} }) as { kubeletconfig: unknown },
    podLogsDir: () => String(live.config?.podLogsDir ?? '/var/log/pods'),
    metrics,
    probeMetrics,
    execSync: () => {
      const cri = live.cri;
      return cri ? (id, cmd, timeoutSeconds) => cri.runtime.execSync(id, cmd, timeoutSeconds) : undefined;
    },
    runtimeCalls: () => runtimeCalls.calls,
    statsSummary: (onlyCpuAndMemory) => stats.get(onlyCpuAndMemory),
    clock,
    metricsMaxAgeMs: 1000,
    lags: () => ({
      syncLoop: { durationsMs: lag.histogram, recentMaxMs: lag.recentMaxMs() },
      eventLoop: { durationsMs: eventLoop.histogram, recentMaxMs: eventLoop.recentMaxMs() },
    }),
  });
  const healthChecks: HealthCheck[] = [
    { name: 'ping', check: () => null },
    { name: 'log', check: () => null },
    { name: 'syncloop', check: () => syncLoopProblem(directory, live.config, clock.now()) },
  ];

  const opener = createJournalOpener({
    sink: journal,
    kubeletVersion: KUBELET_TS_VERSION,
    machinesSha256: machinesSha256(),
    startTime,
    onError: (err) => logger.error({ err }, 'Event log write failed; the journal is now off'),
  });
  const deps: PhaseDeps = {
    argv,
    env: io.env,
    logger,
    clock,
    config: createConfigSteps(),
    maskForConfigz,
    ...createHostPorts(io.env),
    hostname: { hostname: () => osHostname() },
    runtime: createRuntimeConnector(logger, runtimeCalls),
    debugServer: {
      start: (address) =>
        startDebugServer(address, {
          actors: () => directory.list(),
          pods: () => podsView(directory.snapshot('syncLoop')),
          visualizer: { mode: 'live', graphs: machineGraphs(), feed },
          journal: () => ({ path: null, records: journal.records }),
        }),
    },
    journal: {
      disable: () => opener.disable(),
      open: async (o) => {
        const opened = await opener.open(o);
        journalClose = opened.close;
        logger.info({ path: opened.path }, 'Event log opened');
        return opened;
      },
    },
    healthz: { start: (host, port) => startHealthz(host, port, healthChecks) },
    servers: {
      startKubelet: ({ webhook, systemLogHandler, ...o }) => {
        const reviewers = webhook && live.api
          ? createApiReviewers(live.api.main, clock, { tokenMs: webhook.tokenTtlMs, authorizedMs: webhook.authorizedTtlMs, unauthorizedMs: webhook.unauthorizedTtlMs })
          : null;
        const auth = {
          ...o.auth,
          ...(reviewers && webhook?.authentication ? { tokenReviewer: reviewers.tokenReviewer } : {}),
          ...(reviewers && webhook?.authorization ? { accessReviewer: reviewers.accessReviewer } : {}),
        };
        return startKubeletServer({
          ...o, auth, view, healthChecks,
          systemLogs: { enabled: systemLogHandler, dir: SYSTEM_LOG_DIR },
          logger: actorLogger(logger, 'kubeletServer', 'http'),
        });
      },
      startReadOnly: (o) => startReadOnlyServer({ ...o, view, healthChecks, logger: actorLogger(logger, 'readOnlyServer', 'http') }),
    },
    gc: {
      activePods: () => {
        const ctx = (directory.snapshot('syncLoop') as { context?: SyncLoopContext } | undefined)?.context;
        return ctx?.sourcesReady ? new Set(Object.keys(ctx.pods)) : null;
      },
      listDirs: async (d) => (await readdir(d, { withFileTypes: true }).catch(() => [])).filter((e) => e.isDirectory()).map((e) => e.name),
      removeDir: (p) => rm(p, { recursive: true, force: true }),
      fsUsage: async (p) => {
        const s = await statfs(p);
        return { capacityBytes: s.blocks * s.bsize, availableBytes: s.bavail * s.bsize };
      },
    },
    makeDirectories: async (paths) => {
      for (const p of paths) await makeDirectories(p);
    },
    lifetimes,
    live,
    // client-node costs ~70 MiB of memory once loaded: only cluster mode loads it.
    createApiClients: async (o) => {
      const { createApiClients } = await import('../adapters/apiserver/create-api-clients.js');
      return createApiClients({ ...o, clock, logger: actorLogger(logger, 'apiClients', 'apiserver') });
    },
    requestStop: (reason) => supervisor?.send({ type: 'kubelet.stop.requested', signal: reason }),
  };

  const effects = createEffects(deps);
  const transitions = logTransitions(logger, tap.stableId);
  const actor = createActor(provideSystem(effects), {
    input: { argv, stopTimeoutMs: 20_000 },
    systemId: 'supervisor',
    clock: lag.clock,
    inspect: (ev) => {
      // First: the lag is read when the timer's event is seen, before the journal's own work.
      lag.inspect(ev);
      tap.inspect(ev);
      directory.inspect(ev);
      metrics.inspect(ev);
      probeMetrics.inspect(ev);
      transitions(ev);
      // The syncLoop's refused pods become Warning events (its emitted events are not in this stream).
      if (ev.type === '@xstate.actor' && tap.stableId(ev.actorRef as AnyActorRef) === 'syncLoop') relayAdmissionRejections(ev.actorRef as AnyActorRef, () => live.events);
    },
  });
  supervisor = actor;
  logPhases(actor, logger);
  const unsubscribe = io.onSignal((signal) => actor.send({ type: 'kubelet.stop.requested', signal }));
  actor.start();

  const final = await waitFor(actor, (s) => s.status !== 'active', { timeout: Infinity });
  unsubscribe();
  eventLoop.stop();
  const context = final.context as SupervisorContext;
  if (final.value === 'failed') {
    // A failed phase skips the orderly stop: close what start-up had opened.
    await lifetimes.closeAll(5000);
  }
  await journal.flush();
  await (journalClose as (() => Promise<void>) | null)?.();
  return reportExit(context, io, logger);
}

/**
 * healthz's syncloop check: the Go kubelet fails it when the loop has not run for
 * max(2 × syncFrequency, 5 m). Our syncLoop has no idle tick; the PLEG's relist is its heartbeat.
 */
function syncLoopProblem(directory: ActorDirectory, config: Record<string, unknown> | undefined, nowMs: number): string | null {
  if (directory.find('syncLoop')?.status !== 'active') return 'the syncLoop is not running';
  const last = (directory.snapshot('pleg') as { context?: { lastRelistAtMs?: number | null } } | undefined)?.context?.lastRelistAtMs;
  if (last === undefined || last === null) return null;
  const syncMs = typeof config?.syncFrequency === 'string' ? parseGoDuration(config.syncFrequency) : 60_000;
  const limitMs = Math.max(2 * syncMs, 5 * 60_000);
  return nowMs - last > limitMs ? `syncLoop was last active ${Math.round((nowMs - last) / 1000)}s ago; threshold is ${limitMs / 1000}s` : null;
}

/** run.nodeName's answer, once that phase has run. */
function nodeNameOf(supervisor: AnyActorRef | null): string | undefined {
  const out = (supervisor?.getSnapshot() as { context?: SupervisorContext } | undefined)?.context?.outputs['run.nodeName'];
  return (out as { nodeName?: string } | undefined)?.nodeName;
}

/** The syncLoop's pods for /debug/pods: each pod's identity, lifecycle and latest status; the uids of orphans being killed. */
function podsView(snapshot: unknown) {
  const ctx = (snapshot as { context?: SyncLoopContext } | undefined)?.context;
  if (!ctx) return { pods: [], rejectedManifests: [], orphans: [] };
  return {
    pods: Object.entries(ctx.pods).map(([uid, p]) => ({
      uid,
      namespace: p.pod.metadata.namespace,
      name: p.pod.metadata.name,
      lifecycle: p.lifecycle,
      status: p.status,
    })),
    rejectedManifests: ctx.rejectedManifests,
    orphans: Object.keys(ctx.orphans),
  };
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
  return 0;
}

/**
 * One info line per phase entered (the start-up as a person follows it), and once running, one
 * line that says where to look: the pods, their logs, the event log, healthz.
 */
function logPhases(actor: AnyActorRef, logger: Logger): void {
  let last: string | null = null;
  actor.subscribe({
    next: (s: { value: unknown; context: SupervisorContext }) => {
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
  const out = context.outputs as Record<string, Record<string, unknown> | undefined>;
  const debug = out['command.debugServer']?.address;
  const config = (out['command.loadConfigFile']?.config ?? {}) as Record<string, unknown>;
  return {
    pods: debug ? `http://${String(debug)}/debug/pods` : 'the debug server is off (--debug-address)',
    actors: debug ? `http://${String(debug)}/debug/actors` : undefined,
    podLogsDir: config.podLogsDir,
    eventLog: out['command.dependencies']?.eventLog ?? 'off',
    healthz: out['run.healthz']?.healthz,
  };
}

/** Every machine's state changes at debug level, through one cached child logger per actor. */
function logTransitions(root: Logger, stableId: (ref: AnyActorRef) => string) {
  return (ev: InspectionEvent) => {
    if (ev.type !== '@xstate.snapshot' || !root.isLevelEnabled('debug')) return;
    const ref = ev.actorRef as AnyActorRef & { logic?: { root?: unknown; id?: string } };
    if (!ref.logic || !('root' in ref.logic)) return;
    const snap = ev.snapshot as { value?: unknown; status?: string };
    actorLogger(root, stableId(ref), ref.logic.id ?? 'machine').debug({ event: ev.event.type, value: snap.value, status: snap.status }, 'Actor transition');
  };
}
