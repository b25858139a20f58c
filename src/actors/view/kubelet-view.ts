/**
 * The kubelet as its HTTP server reads it (the KubeletView port): pods and statuses from the
 * syncLoop's last snapshot, /configz from what run.configz registered, metrics from the collector
 * and the CRI call counts, container log files by the instance the pod's status names and the
 * log path the CRI's ContainerStatus gives for it, probe metrics from the probe collector, /run's commands through the CRI's ExecSync, /exec, /attach and
 * /portForward's session URLs through the CRI's streaming calls, and /stats/summary from the stats
 * provider (actors/stats/summary-provider.ts).
 */
import { KubeletError } from '../../domain/errors.js';
import { containerLogInstance } from '../../domain/kubelet-server/container-log-status.js';
import { runtimeContainerId } from '../../domain/kubelet-server/container-identities.js';
import type { KubeletMetricsSnapshot, LagFigures } from '../../domain/kubelet-server/kubelet-metrics.js';
import type { MachineInfo } from '../../domain/node/host-types.js';
import type { Pod, PodStatus } from '../../domain/pod/types.js';
import type { Summary } from '../../domain/stats/summary-types.js';
import type { PodVolumeStats } from '../../domain/stats/volume-stats.js';
import type { PodResourcesRequests } from '../../domain/pod-resources/request-metrics.js';
import type { Clock } from '../../ports/clock.js';
import { podUidLabel } from '../../domain/runtime/labels.js';
import type { CriRuntimeService, ExecSyncResponse } from '../../ports/cri.js';
import type { ContainerLogFile, ContainerLookup, KubeletView, StreamingSession } from '../../ports/kubelet-view.js';
import type { SyncLoopContext } from '../../machines/sync-loop.machine.js';
import type { MetricsCollector } from './metrics-collector.js';
import type { ProbeMetricsCollector } from './probe-metrics-collector.js';
import { findContainer } from '../../domain/pod/pod-containers.js';

export interface KubeletViewSources {
  syncLoop: () => SyncLoopContext | undefined;
  pleg: () => { lastRelistAtMs?: number | null; discardedEvents?: number } | undefined;
  configz: () => { kubeletconfig: unknown };
  metrics: MetricsCollector;
  probeMetrics: ProbeMetricsCollector;
  /** The CRI's ExecSync; undefined until run.preInitRuntime has connected the runtime. */
  execSync: () => ((containerId: string, cmd: string[], timeoutSeconds: number) => Promise<ExecSyncResponse>) | undefined;
  runtimeCalls: () => Map<string, { count: number; errors: number }>;
  /** The CRI calls /exec, /attach, /portForward and /containerLogs need; undefined until the runtime is connected. */
  streaming?: () => Pick<CriRuntimeService, 'exec' | 'attach' | 'portForward' | 'listPodSandbox' | 'containerStatus'> | undefined;
  /** GET /stats/summary: a SummaryProvider's get. */
  statsSummary: (onlyCpuAndMemory: boolean) => Promise<Summary>;
  /** run.machineInfo's answer; undefined before that phase ran (or when not wired). */
  machineInfo?: () => MachineInfo | undefined;
  /**
   * For how long one metrics snapshot is answered again (0: built per call). Under a crowd of
   * scrapers, building and rendering /metrics per request holds the event loop; counters a second
   * old are still what a scrape expects.
   */
  metricsMaxAgeMs?: number;
  clock?: Pick<Clock, 'now'>;
  /** The syncLoop's iteration lag and the event loop's delay, when measured. */
  lags?: () => { syncLoop: LagFigures; eventLoop: LagFigures };
  /** Each pod's latest volume stats (the volume stats analyzer's cache), for /metrics. */
  volumeStats?: () => ReadonlyMap<string, PodVolumeStats>;
  /** The pod resources API's call counters, for /metrics. */
  podResourcesRequests?: () => PodResourcesRequests;
  /** The device plugins' registrations and Allocate durations. */
  devicePlugins?: () => NonNullable<KubeletMetricsSnapshot['devicePlugins']>;
}

export function createKubeletView(src: KubeletViewSources): KubeletView {
  const entries = () => Object.entries(src.syncLoop()?.pods ?? {});
  const find = (namespace: string, name: string) =>
    entries().find(([, p]) => (p.pod.metadata.namespace ?? 'default') === namespace && p.pod.metadata.name === name && p.lifecycle !== 'terminated');
  const metricsSnapshot = (): KubeletMetricsSnapshot => {
    const byState: Record<string, number> = { running: 0, exited: 0, created: 0, unknown: 0 };
    let runningPods = 0;
    for (const [, p] of entries()) {
      const statuses = p.status?.containerStatuses ?? [];
      if (statuses.some((c) => c.state?.running)) runningPods += 1;
      for (const c of statuses) {
        const state = c.state?.running ? 'running' : c.state?.terminated ? 'exited' : c.state?.waiting ? 'created' : 'unknown';
        byState[state] = (byState[state] ?? 0) + 1;
      }
    }
    const m = src.metrics;
    const lags = src.lags?.();
    return {
      runningPods,
      runningContainers: byState,
      plegLastRelistAtMs: src.pleg()?.lastRelistAtMs ?? null,
      plegDiscardedEvents: src.pleg()?.discardedEvents ?? 0,
      plegRelistDurationsMs: m.plegRelist,
      podStartDurationsMs: m.podStart,
      podWorkerDurationsMs: { sync: m.podWorkerSync },
      runtimeOperations: [...src.runtimeCalls()].map(([op, c]) => ({ op: goOperationName(op), count: c.count, errors: c.errors })),
      startedPods: m.startedPods,
      nodeStartup: m.startupMs === null ? [] : [{ phase: 'total', durationMs: m.startupMs }],
      ...(lags ? { syncLoopLag: lags.syncLoop, eventLoopDelay: lags.eventLoop } : {}),
      ...(src.devicePlugins ? { devicePlugins: src.devicePlugins() } : {}),
      ...(src.volumeStats ? { podVolumeStats: [...src.volumeStats().values()].map((v) => [...v.ephemeral, ...v.persistent]) } : {}),
      // A copy: the counters go on counting while this snapshot is answered.
      ...(src.podResourcesRequests ? { podResourcesRequests: { ...src.podResourcesRequests() } } : {}),
      cpuPinning: src.syncLoop()?.cpuPinning ?? { requests: 0, errors: 0 },
    };
  };
  let metricsOf: { atMs: number; snapshot: KubeletMetricsSnapshot } | null = null;
  let podsOf: { ctx: SyncLoopContext | undefined; pods: readonly Pod[] } | null = null;
  // Logs outlive the pod worker: a finished pod's are served until the pod is gone, as Go serves
  // them from the status it keeps; a pod running under the same name comes first.
  const findWithLogs = (namespace: string, name: string) =>
    find(namespace, name) ?? entries().find(([, p]) => (p.pod.metadata.namespace ?? 'default') === namespace && p.pod.metadata.name === name);
  const statusIn = (status: PodStatus | null | undefined, container: string) =>
    status?.containerStatuses?.find((c) => c.name === container) ?? status?.initContainerStatuses?.find((c) => c.name === container) ??
    status?.ephemeralContainerStatuses?.find((c) => c.name === container);
  const containerStatus = (namespace: string, name: string, container: string) => statusIn(find(namespace, name)?.[1].status, container);

  return {
    // The syncLoop's context is a new object whenever it changes: the list is rebuilt only then.
    pods: (): readonly Pod[] => {
      const ctx = src.syncLoop();
      if (!podsOf || podsOf.ctx !== ctx) podsOf = { ctx, pods: entries().map(([, p]) => ({ ...p.pod, status: p.status ?? {} })) };
      return podsOf.pods;
    },
    configz: () => src.configz(),
    // The same snapshot for metricsMaxAgeMs: the server renders it once.
    metrics: (): KubeletMetricsSnapshot => {
      const now = src.clock?.now() ?? 0;
      if (!metricsOf || now - metricsOf.atMs >= (src.metricsMaxAgeMs ?? 0)) metricsOf = { atMs: now, snapshot: metricsSnapshot() };
      return metricsOf.snapshot;
    },
    containerLogPath: async (namespace, name, container, previous): Promise<ContainerLogFile> => {
      const picked = containerLogInstance(findWithLogs(namespace, name)?.[1].status, name, container, previous);
      if (!picked.ok) return { error: picked.message };
      // The runtime's log path of that instance, as Go's GetContainerLogs asks ContainerStatus for it.
      const id = runtimeContainerId(picked.containerId);
      try {
        const status = await connectedStreaming(src).containerStatus(id);
        return { path: status.status?.log_path ?? '' };
      } catch (err) {
        return { error: `failed to get container status ${JSON.stringify(id)}: ${(err as Error).message}` };
      }
    },
    statsSummary: (onlyCpuAndMemory) => src.statsSummary(onlyCpuAndMemory),
    machineInfo: () => src.machineInfo?.() ?? null,
    probeMetrics: () => src.probeMetrics.snapshot(),
    runningContainer: (namespace, name, container, uid): ContainerLookup => {
      const hit = find(namespace, name);
      if (!hit || (uid !== undefined && hit[0] !== uid)) return { found: 'noPod' };
      if (!findContainer(hit[1].pod, container)) return { found: 'noContainer' };
      const status = containerStatus(namespace, name, container);
      const id = status?.state?.running ? runtimeContainerId(status.containerID) : '';
      return id ? { found: 'running', containerId: id } : { found: 'notRunning' };
    },
    execInContainer: async (containerId, cmd) => {
      const execSync = src.execSync();
      if (!execSync) throw new KubeletError('KLT_ERR_CRI_UNAVAILABLE', 'the container runtime is not connected yet', { retryable: true });
      const r = await execSync(containerId, cmd, 0);
      return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exit_code };
    },
    podSandboxId: async (podUid) => {
      const sandboxes = await connectedStreaming(src).listPodSandbox({ label_selector: { [podUidLabel]: podUid } });
      // Newest first, as Go sorts them (created_at is an int64 of nanoseconds, as a string).
      const newest = [...sandboxes].sort((a, b) => (BigInt(b.created_at) > BigInt(a.created_at) ? 1 : -1))[0];
      return newest?.id ?? null;
    },
    streamingUrl: async (session) => streamingUrlOf(connectedStreaming(src), session),
  };
}

function connectedStreaming(src: KubeletViewSources): NonNullable<ReturnType<NonNullable<KubeletViewSources['streaming']>>> {
  const cri = src.streaming?.();
  if (!cri) throw new KubeletError('KLT_ERR_CRI_UNAVAILABLE', 'the container runtime is not connected yet', { retryable: true });
  return cri;
}

/** The CRI streaming call for the session; a runtime client without it is a runtime that does not serve it. */
function streamingUrlOf(cri: Pick<CriRuntimeService, 'exec' | 'attach' | 'portForward'>, session: StreamingSession): Promise<string> {
  const missing = (rpc: string) => Promise.reject(new KubeletError('KLT_ERR_CRI_UNIMPLEMENTED', `${rpc}: the runtime client has no streaming calls`));
  switch (session.kind) {
    case 'exec': return cri.exec ? cri.exec(session.request) : missing('Exec');
    case 'attach': return cri.attach ? cri.attach(session.request) : missing('Attach');
    case 'portForward': return cri.portForward ? cri.portForward(session.podSandboxId, session.ports) : missing('PortForward');
  }
}

/** Go's operation_type label: the CRI method in snake_case, "pod_sandbox" as "podsandbox" (run_podsandbox, create_container). */
export function goOperationName(method: string): string {
  return method.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace('pod_sandbox', 'podsandbox');
}
