/**
 * What the kubelet server reads from the rest of the kubelet: one narrow view, implemented by the
 * composition root over the syncLoop, PLEG, runtime and config state. Every read may answer
 * synchronously or with a promise; the server awaits each one per request and holds nothing.
 *
 * Also here: the two auth ports the server delegates to the API server when there is one
 * (TokenReview for bearer tokens, SubjectAccessReview for the Webhook authorizer).
 */
import type { Pod } from '../domain/pod/types.js';
import type { Durations, KubeletMetricsSnapshot } from '../domain/kubelet-server/kubelet-metrics.js';
import type { HistogramCounts } from '../domain/kubelet-server/histogram-counts.js';
import type { ProbeMetricsSnapshot } from '../domain/kubelet-server/probe-metrics.js';
import type { NodeRequestAttributes, UserInfo } from '../domain/kubelet-server/request-attributes.js';
import type { MachineInfo } from '../domain/node/host-types.js';
import type { Summary } from '../domain/stats/summary-types.js';
import type { AttachRequest, ExecRequest } from './cri.js';

export type { Durations, HistogramCounts, KubeletMetricsSnapshot, NodeRequestAttributes, ProbeMetricsSnapshot, Summary, UserInfo };

type MaybePromise<T> = T | Promise<T>;

export interface KubeletView {
  /**
   * Every pod the kubelet is asked to run, spec and latest status (apiVersion/kind optional). The
   * same array while nothing changed, a new one when anything did (never changed in place): the
   * server renders a PodList once per array, not once per request.
   */
  pods(): MaybePromise<readonly Pod[]>;
  /** The /configz body, secrets already masked: `configzBody(cfg)` from domain/config/configz. */
  configz(): MaybePromise<{ kubeletconfig: unknown }>;
  /** The metrics; the same object may be answered for a while (the server renders it once). */
  metrics(): MaybePromise<KubeletMetricsSnapshot>;
  /** The prober's counters and durations, for /metrics/probes. */
  probeMetrics(): MaybePromise<ProbeMetricsSnapshot>;
  /**
   * The CRI log file of the container instance Go's validateContainerLogStatus picks from the pod's
   * status (domain/kubelet-server/container-log-status.ts), as the runtime reports it for that instance; or
   * why there is none, in Go's words (the server answers them as 400).
   */
  containerLogPath(namespace: string, pod: string, container: string, previous: boolean): MaybePromise<ContainerLogFile>;
  /**
   * /stats/summary: node and pod stats now (cpu and memory only when asked). Rejects with
   * KLT_ERR_STATS_UNAVAILABLE, naming what could not be read, when the runtime or host fails.
   */
  statsSummary(onlyCpuAndMemory: boolean): MaybePromise<Summary>;
  /** The machine as run.machineInfo read it (cores, memory, ids), for /metrics/cadvisor; null before that phase ran. */
  machineInfo(): MaybePromise<MachineInfo | null>;
  /**
   * The running instance of a pod's container, for /run and for `follow` (which ends once the
   * instance it started on is no longer the running one). `uid`, when given, must be the pod's UID.
   * Terminated pods are not found.
   */
  runningContainer(namespace: string, pod: string, container: string, uid?: string): MaybePromise<ContainerLookup>;
  /**
   * Runs `cmd` in the container and waits for it (CRI ExecSync, no command timeout, as Go's
   * RunInContainer). Rejects with a KubeletError when the runtime cannot run it.
   */
  execInContainer(containerId: string, cmd: string[]): Promise<ExecOutput>;
  /**
   * The pod's newest sandbox (any state), by the pod UID label, as Go's getSandboxIDByPodUID finds
   * it for port forwarding; null when the runtime has none.
   */
  podSandboxId(podUid: string): Promise<string | null>;
  /**
   * Asks the runtime for a streaming session (CRI Exec, Attach or PortForward) and answers the URL
   * it serves it at. Rejects with a KubeletError: KLT_ERR_CRI_UNIMPLEMENTED from a runtime without
   * a streaming server, KLT_ERR_CRI_UNAVAILABLE before the runtime is connected.
   */
  streamingUrl(session: StreamingSession): Promise<string>;
}

export type StreamingSession =
  | { kind: 'exec'; request: ExecRequest }
  | { kind: 'attach'; request: AttachRequest }
  | { kind: 'portForward'; podSandboxId: string; ports: number[] };

/** A log file to read, or why there is none. */
export type ContainerLogFile = { path: string } | { error: string };

export type ContainerLookup =
  | { found: 'running'; containerId: string }
  | { found: 'noPod' }
  | { found: 'noContainer' }
  | { found: 'notRunning' };

export interface ExecOutput {
  stdout: Buffer;
  stderr: Buffer;
  exitCode: number;
}

export interface TokenReviewResult {
  authenticated: boolean;
  user?: UserInfo;
  /** Set when the review itself failed (API server unreachable…). */
  error?: string;
}

/** authentication.webhook: a TokenReview against the API server. */
export interface TokenReviewer {
  review(token: string): Promise<TokenReviewResult>;
}

export interface AccessReviewResult {
  allowed: boolean;
  reason?: string;
}

/** authorization.mode Webhook: a SubjectAccessReview against the API server. Rejects on failure. */
export interface SubjectAccessReviewer {
  review(attributes: NodeRequestAttributes): Promise<AccessReviewResult>;
}
