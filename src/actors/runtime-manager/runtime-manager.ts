/**
 * The runtime manager pod workers call (Go's kubeGenericRuntimeManager): SyncPod, KillPod,
 * removal, the runtime's view of a pod, ExecSync and image filesystem info, over the CRI port.
 *
 * syncPod plans with computePodActions and executes the plan step by step in SyncPod's order:
 *   Step 1: read the runtime's view and compute the actions;
 *   Step 2: kill the pod if the sandbox changed or nothing is left to run (a failure ends the sync);
 *   Step 3: otherwise kill the containers not to keep (a failure ends the sync);
 *   Step 4: create the sandbox if needed (RunPodSandbox, then PodSandboxStatus for its IPs; a failure
 *           ends the sync);
 *   Step 5: start the next init container (a failure ends the sync);
 *   Step 6: start the regular containers (a failure is recorded and the next container is tried).
 * Starting a container: crash-loop back-off check, ensure the image, CreateContainer, StartContainer.
 *
 * Every result is plain data (SyncPodResult), so pod workers can carry it in events and the journal.
 *
 * Differs from Go (not done yet): postStart and preStop hooks are skipped; no ephemeral containers,
 * sidecars, in-place resize or DRA; the restart count of a container the runtime forgot is not
 * recovered from its log directory; the runtime handler of a RuntimeClass is not resolved; no events
 * are recorded (results carry the reasons instead); init containers of an old sandbox are purged but
 * older exited init containers are not pruned before start (container GC's job).
 */
import { mkdir, readFile } from 'node:fs/promises';
import { totalmem } from 'node:os';
import { KubeletError } from '../../domain/errors.js';
import type { Container, Pod } from '../../domain/pod/types.js';
import { Backoff, containerRestartBackoffPolicy, type BackoffPolicy } from '../../domain/runtime/backoff.js';
import { computePodActions, type PodActions, type ProbeFailures } from '../../domain/runtime/compute-pod-actions.js';
import { hashContainer } from '../../domain/runtime/container-hash.js';
import { generateContainerConfig, generatePodSandboxConfig, type NodeRuntimeContext } from '../../domain/runtime/container-config.js';
import { parseResolvConf } from '../../domain/runtime/dns.js';
import type { EnvSourceLookup } from '../../domain/runtime/env.js';
import { containerGracePeriodSeconds } from '../../domain/runtime/grace-period.js';
import { findContainerStatus, type RuntimePodStatus } from '../../domain/runtime/pod-status.js';
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { CriClient, ImageFsInfoResponse } from '../../ports/cri.js';
import { createImageManager } from './image-manager.js';
import { readPodStatus } from './pod-status-reader.js';
import { failure, type KillPodResult, type SyncPodResult, type SyncStep, type SyncStepResult } from './sync-result.js';

/** What the node contributes to pod configuration; every field has the Go kubelet's default. */
export interface RuntimeNodeOptions {
  /** The node's IPs, primary first (status.hostIP(s) env vars). Default none. */
  hostIPs?: string[];
  /** Machine memory for the Burstable oom_score_adj. Default: this machine's. */
  memoryCapacityBytes?: number;
  nodeAllocatable?: Record<string, string>;
  /** --cluster-dns. Default none (ClusterFirst then falls back to Default, as Go does). */
  clusterDNS?: string[];
  /** --cluster-domain. Default "". */
  clusterDomain?: string;
  /** --resolv-conf. Default /etc/resolv.conf; "" means none. */
  resolvConf?: string;
  /** --cpu-cfs-quota, --cpu-cfs-quota-period (µs). */
  cpuCfsQuota?: boolean;
  cpuCfsQuotaPeriodMicros?: number;
  /** The pod's cgroup parent, from the container manager. Default: the runtime decides. */
  cgroupParentFor?: (pod: Pod) => string | undefined;
  /** Service link variables for a pod (enableServiceLinks). Default none. */
  serviceEnvFor?: (pod: Pod) => ReadonlyMap<string, string>;
  /** ConfigMaps and Secrets for env vars. Default none: such references fail the container. */
  lookup?: EnvSourceLookup;
}

export interface RuntimeManagerOptions {
  cri: CriClient;
  /** --pod-logs-dir (/var/log/pods). */
  podLogsDir: string;
  clock: Clock;
  logger: Logger;
  imagePullBackOff?: BackoffPolicy;
  containerBackOff?: BackoffPolicy;
  node?: RuntimeNodeOptions;
  /** Creates a pod's log directory before its sandbox (Go does os.MkdirAll). Default: mkdir -p. */
  makeDirectory?: (path: string) => Promise<void>;
  /** Reads --resolv-conf. Default: the file system. */
  readTextFile?: (path: string) => Promise<string>;
}

export interface SyncPodOptions {
  /** Failed liveness/startup probes by container name (from the probe manager). */
  probes?: ProbeFailures;
  /** A view of the pod read just before (by PLEG, say); read from the runtime when absent. */
  podStatus?: RuntimePodStatus;
}

export interface ExecSyncResult { stdout: string; stderr: string; exitCode: number }

export interface RuntimeManager {
  syncPod(pod: Pod, opts?: SyncPodOptions): Promise<SyncPodResult>;
  /** Stop the pod's running containers (in parallel, with the grace period), then its sandboxes. */
  killPod(pod: Pod, gracePeriodSeconds?: number): Promise<KillPodResult>;
  /** Remove the pod's containers, then its sandboxes. */
  removePod(uid: string): Promise<KillPodResult>;
  getPodStatus(uid: string): Promise<RuntimePodStatus>;
  execSync(containerId: string, cmd: string[], timeoutSeconds: number): Promise<ExecSyncResult>;
  imageFsInfo(): Promise<ImageFsInfoResponse>;
}

const noActions: PodActions = { killPod: false, createSandbox: false, attempt: 0, initContainersToStart: [], containersToStart: [], containersToKill: [] };

function podRef(pod: Pod): string {
  return `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;
}

function allContainers(pod: Pod): Container[] {
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
}

/** GetStableKey: the crash-loop back-off follows a container spec, not a container instance. */
function containerBackoffKey(pod: Pod, container: Container): string {
  const ns = pod.metadata.namespace ?? 'default';
  return `${pod.metadata.name}_${ns}_${pod.metadata.uid}_${container.name}_${hashContainer(container).toString(16)}`;
}

function nanosToMillis(ns: string): number {
  return Number(BigInt(ns || '0') / 1_000_000n);
}

export function createRuntimeManager(opts: RuntimeManagerOptions): RuntimeManager {
  const { cri, clock } = opts;
  const log = opts.logger.child({ component: 'runtimeManager' });
  const node = opts.node ?? {};
  const images = createImageManager({ cri, clock, logger: log, ...(opts.imagePullBackOff ? { backoff: opts.imagePullBackOff } : {}) });
  const crashBackoff = new Backoff(opts.containerBackOff ?? containerRestartBackoffPolicy);
  const makeDirectory = opts.makeDirectory ?? (async (path: string) => void (await mkdir(path, { recursive: true, mode: 0o755 })));
  const readTextFile = opts.readTextFile ?? ((path: string) => readFile(path, 'utf8'));
  const resolvConfPath = node.resolvConf ?? '/etc/resolv.conf';

  async function nodeContext(pod: Pod): Promise<NodeRuntimeContext> {
    // Read on every sandbox, as Go does: resolv.conf may change while the kubelet runs.
    const hostDns = resolvConfPath === '' ? undefined : parseResolvConf(await readTextFile(resolvConfPath));
    const serviceEnv = node.serviceEnvFor?.(pod);
    return {
      podLogsDir: opts.podLogsDir,
      dns: { clusterDNS: node.clusterDNS ?? [], clusterDomain: node.clusterDomain ?? '', nodeIPs: node.hostIPs ?? [], ...(hostDns ? { hostDns } : {}) },
      hostIPs: node.hostIPs ?? [],
      memoryCapacityBytes: node.memoryCapacityBytes ?? totalmem(),
      ...(node.nodeAllocatable ? { nodeAllocatable: node.nodeAllocatable } : {}),
      ...(node.cpuCfsQuota !== undefined ? { cpuCfsQuota: node.cpuCfsQuota } : {}),
      ...(node.cpuCfsQuotaPeriodMicros !== undefined ? { cpuCfsQuotaPeriodMicros: node.cpuCfsQuotaPeriodMicros } : {}),
      ...(serviceEnv ? { serviceEnv } : {}),
      ...(node.lookup ? { lookup: node.lookup } : {}),
    };
  }

  /** Runs one step, timing it on the clock and turning a rejection into a failed step. */
  async function runStep<T>(step: SyncStep, target: string, fallbackReason: string | (() => string), work: () => Promise<T>): Promise<{ result: SyncStepResult; value?: T }> {
    const started = clock.now();
    try {
      const value = await work();
      return { result: { step, target, ok: true, durationMs: clock.now() - started }, value };
    } catch (err) {
      const reason = typeof fallbackReason === 'function' ? fallbackReason() : fallbackReason;
      return { result: { step, target, ok: false, ...failure(err, reason), durationMs: clock.now() - started } };
    }
  }

  /** Stops running containers in parallel, then every sandbox (killPodWithSyncResult). */
  async function killPodWithStatus(pod: Pod, status: RuntimePodStatus, gracePeriodOverride?: number): Promise<SyncStepResult[]> {
    const running = status.containers.filter((c) => c.state === 'running');
    const spec = new Map(allContainers(pod).map((c) => [c.name, c]));
    const kills = await Promise.all(running.map(async (c) => {
      const grace = containerGracePeriodSeconds(pod, spec.get(c.name), undefined, gracePeriodOverride);
      log.debug({ pod: podRef(pod), containerName: c.name, containerId: c.id, gracePeriod: grace }, 'Killing container with a grace period');
      const { result } = await runStep('killContainer', c.name, 'KillContainerError', () => cri.runtime.stopContainer(c.id, grace));
      return { ...result, id: c.id };
    }));
    // Sandboxes are stopped even when a container could not be: Go does the same, and a stopped
    // sandbox takes what still runs in it down with it.
    const { result: sandboxResult } = await runStep('killPodSandbox', podRef(pod), 'KillPodSandboxError', async () => {
      for (const s of status.sandboxes) {
        try {
          await cri.runtime.stopPodSandbox(s.id);
        } catch (err) {
          if (!(err instanceof KubeletError && err.code === 'KLT_ERR_CRI_NOT_FOUND')) throw err;
        }
      }
    });
    return [...kills, sandboxResult];
  }

  /** A new sandbox starts initialization over: remove the old init containers (purgeInitContainers). */
  async function purgeInitContainers(pod: Pod, status: RuntimePodStatus): Promise<void> {
    const names = new Set((pod.spec.initContainers ?? []).map((c) => c.name));
    for (const c of status.containers) {
      if (!names.has(c.name)) continue;
      try {
        await cri.runtime.removeContainer(c.id);
      } catch (err) {
        log.warn({ pod: podRef(pod), containerId: c.id, err }, 'Failed to remove pod init container');
      }
    }
  }

  async function syncPod(pod: Pod, syncOpts: SyncPodOptions = {}): Promise<SyncPodResult> {
    const uid = pod.metadata.uid;
    const ref = podRef(pod);
    const steps: SyncStepResult[] = [];
    const done = (actions: PodActions, sandboxId?: string): SyncPodResult => ({
      podUid: uid,
      ok: steps.every((s) => s.ok),
      actions,
      ...(sandboxId !== undefined ? { sandboxId } : {}),
      steps,
    });

    // Step 1: Compute sandbox and container changes.
    const planned = await runStep('computePodActions', ref, 'PodStatusError', async () => {
      const status = syncOpts.podStatus ?? (await readPodStatus(cri, uid));
      return { status, actions: computePodActions(pod, status, syncOpts.probes) };
    });
    steps.push(planned.result);
    if (!planned.value) return done(noActions);
    const { status, actions } = planned.value;
    log.debug({ pod: ref, podUid: uid, actions }, 'computePodActions got for pod');

    // Step 2: Kill the pod if the sandbox has changed (or nothing is left to run).
    if (actions.killPod) {
      log.info({ pod: ref, podUid: uid, createSandbox: actions.createSandbox }, 'Stopping PodSandbox for pod');
      const killed = await killPodWithStatus(pod, status);
      steps.push(...killed);
      if (killed.some((s) => !s.ok)) return done(actions, actions.sandboxId);
      if (actions.createSandbox) await purgeInitContainers(pod, status);
    } else {
      // Step 3: kill any running containers in this pod which are not to keep.
      const spec = new Map(allContainers(pod).map((c) => [c.name, c]));
      for (const k of actions.containersToKill) {
        log.info({ pod: ref, containerName: k.name, containerId: k.id, reason: k.reason, message: k.message }, 'Killing unwanted container for pod');
        const grace = containerGracePeriodSeconds(pod, spec.get(k.name), k.reason);
        const { result } = await runStep('killContainer', k.name, 'KillContainerError', () => cri.runtime.stopContainer(k.id, grace));
        steps.push({ ...result, id: k.id });
        if (!result.ok) return done(actions, actions.sandboxId);
      }
    }

    // Step 4: Create a sandbox for the pod if necessary.
    let sandboxId = actions.sandboxId;
    let podIPs = status.ips;
    const configStep = actions.createSandbox ? 'createPodSandbox' : 'configPodSandbox';
    const configured = await runStep(configStep, ref, actions.createSandbox ? 'CreatePodSandboxError' : 'ConfigPodSandboxError', async () => {
      const ctx = await nodeContext(pod);
      return { ctx, sandboxConfig: generatePodSandboxConfig(pod, actions.attempt, ctx, node.cgroupParentFor?.(pod)) };
    });
    if (!configured.value) {
      steps.push(configured.result);
      return done(actions, sandboxId);
    }
    const { ctx, sandboxConfig } = configured.value;

    if (actions.createSandbox) {
      const created = await runStep('createPodSandbox', ref, 'CreatePodSandboxError', async () => {
        if (sandboxConfig.log_directory) await makeDirectory(sandboxConfig.log_directory);
        const id = await cri.runtime.runPodSandbox(sandboxConfig);
        const sandboxStatus = (await cri.runtime.podSandboxStatus(id)).status;
        if (!sandboxStatus) throw new KubeletError('KLT_ERR_CRI_FAILED', 'pod sandbox status is nil');
        const network = sandboxStatus.network;
        const ips = network ? [network.ip, ...(network.additional_ips ?? []).map((a) => a.ip)].filter((ip) => ip !== '') : [];
        return { id, ips };
      });
      steps.push(created.value ? { ...created.result, id: created.value.id } : created.result);
      if (!created.value) {
        log.error({ pod: ref, podUid: uid, err: created.result.error }, 'CreatePodSandbox for pod failed');
        return done(actions);
      }
      sandboxId = created.value.id;
      // A host-network pod has the node's IPs, not the sandbox's.
      if (!pod.spec.hostNetwork) podIPs = created.value.ips;
      log.info({ pod: ref, podUid: uid, podSandboxId: sandboxId }, 'Created PodSandbox for pod');
    }

    const start = async (step: 'startInitContainer' | 'startContainer', container: Container): Promise<boolean> => {
      let fallbackReason = 'CreateContainerError';
      // The reason a CRI failure is shown under depends on the phase it happened in.
      const { result, value } = await runStep(step, container.name, () => fallbackReason, async () => {
        if (sandboxId === undefined) throw new KubeletError('KLT_ERR_INTERNAL', 'no sandbox to start the container in');
        // Crash-loop back-off, measured from when the newest exited instance finished (doBackOff).
        const exited = status.containers.find((c) => c.name === container.name && c.state === 'exited');
        if (exited) {
          const key = containerBackoffKey(pod, container);
          const finishedMs = nanosToMillis(exited.finishedAt);
          if (crashBackoff.isInBackoffSince(key, finishedMs, clock.now())) {
            const seconds = Math.round((crashBackoff.current(key) ?? 0) / 1000);
            throw new KubeletError('KLT_ERR_CONTAINER_BACKOFF', `back-off ${seconds}s restarting failed container=${container.name} pod=${ref}`, { retryable: true });
          }
          crashBackoff.next(key, clock.now());
        }
        fallbackReason = 'ErrImagePull';
        const imageRef = await images.ensureImageExists(pod, container, sandboxConfig);
        fallbackReason = 'CreateContainerConfigError';
        const previous = findContainerStatus(status, container.name);
        const restartCount = previous ? previous.restartCount + 1 : 0;
        const config = generateContainerConfig(pod, container, { restartCount, imageRef, podIPs }, ctx);
        fallbackReason = 'CreateContainerError';
        const id = await cri.runtime.createContainer(sandboxId, config, sandboxConfig);
        fallbackReason = 'RunContainerError';
        await cri.runtime.startContainer(id);
        // The postStart hook would run here (not implemented yet).
        return id;
      });
      steps.push(value !== undefined ? { ...result, id: value } : result);
      if (result.ok) log.info({ pod: ref, containerName: container.name, containerId: value }, 'Started container');
      else log.warn({ pod: ref, containerName: container.name, reason: result.reason, err: result.error }, 'Container start failed in pod');
      return result.ok;
    };

    // Step 5: start the init container.
    const init = (pod.spec.initContainers ?? []).find((c) => c.name === actions.nextInitContainerToStart);
    if (init && !(await start('startInitContainer', init))) return done(actions, sandboxId);

    // Step 6: start containers in containersToStart; a failure does not stop the others.
    for (const name of actions.containersToStart) {
      const container = pod.spec.containers.find((c) => c.name === name);
      if (container) await start('startContainer', container);
    }
    return done(actions, sandboxId);
  }

  return {
    syncPod,

    async killPod(pod, gracePeriodSeconds) {
      const status = await readPodStatus(cri, pod.metadata.uid);
      const steps = await killPodWithStatus(pod, status, gracePeriodSeconds);
      return { podUid: pod.metadata.uid, ok: steps.every((s) => s.ok), steps };
    },

    async removePod(uid) {
      const status = await readPodStatus(cri, uid);
      const steps: SyncStepResult[] = [];
      for (const c of status.containers) {
        const { result } = await runStep('removeContainer', c.name, 'RemoveContainerError', () => cri.runtime.removeContainer(c.id));
        steps.push({ ...result, id: c.id });
      }
      for (const s of status.sandboxes) {
        const { result } = await runStep('removePodSandbox', s.id, 'RemovePodSandboxError', () => cri.runtime.removePodSandbox(s.id));
        steps.push({ ...result, id: s.id });
      }
      return { podUid: uid, ok: steps.every((s) => s.ok), steps };
    },

    getPodStatus: (uid) => readPodStatus(cri, uid),

    async execSync(containerId, cmd, timeoutSeconds) {
      const response = await cri.runtime.execSync(containerId, cmd, timeoutSeconds);
      return { stdout: response.stdout.toString('utf8'), stderr: response.stderr.toString('utf8'), exitCode: response.exit_code };
    },

    imageFsInfo: () => cri.images.imageFsInfo(),
  };
}
