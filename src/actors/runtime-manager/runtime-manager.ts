/**
 * The runtime manager pod workers call (Go's kubeGenericRuntimeManager): SyncPod, KillPod,
 * removal, the runtime's view of a pod, ExecSync and image filesystem info, over the CRI port.
 *
 * syncPod first asks whether the node can run the pod as asked (Kubelet.SyncPod's canRunPod, its
 * soft admission: AppArmor, apparmor.ts). A pod it cannot is stopped, nothing is started, and the
 * result carries why (`blocked`) and fails, so the pod worker retries after its back-off, as Go's
 * "pod cannot be run" sync error does. Otherwise it
 * plans with computePodActions and executes the plan step by step in SyncPod's order:
 *   Step 1: read the runtime's view and compute the actions;
 *   Step 2: kill the pod if the sandbox changed or nothing is left to run (a failure ends the sync);
 *   Step 3: otherwise kill the containers not to keep (a failure ends the sync);
 *   Step 4: create the sandbox if needed (RunPodSandbox, then PodSandboxStatus for its IPs; a failure
 *           ends the sync);
 *   Step 5: start the ephemeral containers never run yet (a failure is recorded and the sync goes on);
 *   Step 6: start the init containers to start (a failure ends the sync, except a sidecar's);
 *   Step 7: resize running containers in place (pod-resizer.ts; a failure stops the resize, is
 *           recorded and reported in `resize`, and the sync goes on);
 *   Step 8: start the regular containers (a failure is recorded and the next container is tried).
 * Starting a container: crash-loop back-off check, ensure the image, CreateContainer, StartContainer,
 * postStart hook (a failed hook kills the container: PostStartHookError). Stopping one runs its
 * preStop hook within the grace period first.
 *
 * Every result is plain data (SyncPodResult), so pod workers can carry it in events and the journal.
 *
 * The actuated resources (actuated-state.ts) are recorded when a container starts and after each
 * in-place update, and forgotten with the pod (removePod); computePodActions compares them with the
 * allocated pod it is given.
 *
 * Differs from Go (not done yet): no DRA or image volumes;
 * a failed sandbox creation of a pod already
 * being terminated is still reported. Events are recorded where Go records them (kuberuntime, the
 * image manager), through `events`: they are effects of this actor, never journaled inputs.
 */
import type { DraClaimManager } from '../../ports/dra-claims.js';
import type { ContainerDeviceAllocator } from '../../ports/device-plugins.js';
import { KubeletError } from '../../domain/errors.js';
import type { Container, EphemeralContainer, Pod } from '../../domain/pod/types.js';
import { effectivePodIPs } from '../../domain/pod/status.js';
import { admitAppArmor } from '../../domain/runtime/apparmor.js';
import { findEphemeralContainer } from '../../domain/runtime/ephemeral-containers.js';
import { Backoff, containerRestartBackoffPolicy, type BackoffPolicy } from '../../domain/runtime/backoff.js';
import { computePodActions, type PodActions } from '../../domain/runtime/compute-pod-actions.js';
import { generatePodSandboxConfig, type NodeRuntimeContext } from '../../domain/runtime/container-config.js';
import { parseResolvConf } from '../../domain/runtime/dns.js';
import type { EnvSourceLookup } from '../../domain/runtime/env.js';
import { isRestartableInitContainer } from '../../domain/runtime/init-containers.js';
import type { SeccompPolicy } from '../../domain/runtime/seccomp.js';
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { CriClient } from '../../ports/cri.js';
import type { RuntimeManager, SyncPodOptions, SyncPodResult, SyncStepResult } from '../../ports/runtime-manager.js';
import type { RuntimeHost } from '../../ports/runtime-host.js';
import { killContainer } from './container-killer.js';
import { startContainer } from './container-starter.js';
import { createImageManager } from './image-manager.js';
import { killPodContainersAndSandboxes, pruneInitContainers, purgeInitContainers, specsByName } from './pod-killer.js';
import { readPodStatus } from './pod-status-reader.js';
import { podRef, runStep } from './step-runner.js';
import type { PodFiles } from '../../ports/pod-files.js';
import type { VolumePlugins } from '../../ports/volumes.js';
import type { VolumeSources } from '../../ports/volume-sources.js';
import type { ImageCredentialProviders } from '../../ports/image-credentials.js';
import type { EventRecorder } from '../../ports/event-recorder.js';
import type { EventRequest } from '../../domain/status-manager/event-aggregation.js';
import { ContainerEventMessage, podEvent } from '../../domain/runtime/container-events.js';
import { EventReason } from '../../domain/status-manager/event-reasons.js';
import type { RuntimeClassLister } from '../../ports/runtime-classes.js';
import { createUserNamespaces, handlersFromStatus, rangesInRuntime } from './pod-user-namespace.js';
import { runtimeHandlerFor } from './runtime-handler.js';
import { actuatedState, type ActuatedState } from './actuated-state.js';
import { hasResizeWork, resizePod, type PodCgroupAccess } from './pod-resizer.js';
import { actuatedForPod, desiredResourceAmounts } from '../../domain/runtime/actuated-resources.js';
import { isPodResizeInProgress } from '../../domain/runtime/resize-progress.js';
import { isResizeAllowed } from '../../domain/runtime/resize-actions.js';
import type { ResourceContext } from '../../domain/runtime/resources.js';

/** What the node contributes to pod configuration; every field has the Go kubelet's default. */
export interface RuntimeNodeOptions {
  /** The node's IPs, primary first (status.hostIP(s) env vars). Default none. */
  hostIPs?: string[];
  /** Machine memory for the Burstable oom_score_adj. Default: the host's. */
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
  /**
   * Kubelet.SyncPod's pod cgroup step, before a new sandbox: create the pod's cgroup if missing and
   * answer its name (the sandbox's cgroup_parent). Default: cgroupParentFor alone.
   */
  ensurePodCgroup?: (pod: Pod) => Promise<string | undefined>;
  /**
   * The Service variables of a pod (Go's getServiceEnvVarMap), read for each container it starts; a
   * throw fails that start with CreateContainerConfigError. Default none (standalone, as Go).
   */
  serviceEnvFor?: (pod: Pod) => ReadonlyMap<string, string>;
  /** ConfigMaps and Secrets for env vars, fixed (tests). Default: read through `pod.sources`, else none. */
  lookup?: EnvSourceLookup;
  /** seccompDefault and <root-dir>/seccomp, for the profile every sandbox and container is sent. */
  seccomp?: SeccompPolicy;
  /** The RuntimeClass informer (cluster mode); absent standalone, where a pod naming a class is refused. */
  runtimeClasses?: RuntimeClassLister;
  /** The UserNamespacesSupport gate. Default on, as in Go. */
  userNamespaces?: boolean;
  /** The EnvFiles gate (`fileKeyRef`). Default on, as in Go v1.35. */
  envFiles?: boolean;
  /**
   * The static CPU manager's shared pool now, for a container without exclusive CPUs (Go's
   * GetCPUAffinity answers its default set); undefined: no cpuset is sent. Default: none.
   */
  sharedCpus?: () => number[] | undefined;
  /** The device plugins' Allocate answers for a container's devices; without it, devices get nothing from their plugins. */
  deviceRuntime?: ContainerDeviceAllocator['containerDevices'];
  /** The pod cgroup, for in-place resizes (the container manager's). Default: none, only containers are resized. */
  podCgroup?: PodCgroupAccess;
  /** The DRA claim manager: a pod's claims are prepared before its sandbox and unprepared after its kill. Default none. */
  dra?: DraClaimManager;
}

/** What a container's mounts and env read besides the CRI: the pod's files and the API objects. */
export interface RuntimePodOptions {
  /** --root-dir: pod directories (volumes, etc-hosts, termination-message files) live under it. */
  rootDir: string;
  files: PodFiles;
  /** The ConfigMap and Secret managers; absent standalone (env references then fail as in Go). */
  sources?: VolumeSources;
  /** Where a claim's volume was set up (its path is known only once its PV was read). */
  volumes?: Pick<VolumePlugins, 'mountedVolume'>;
}

export interface RuntimeManagerOptions {
  cri: CriClient;
  /** --pod-logs-dir (/var/log/pods). */
  podLogsDir: string;
  clock: Clock;
  logger: Logger;
  containerBackOff?: BackoffPolicy;
  node?: RuntimeNodeOptions;
  /** Without it, containers get no mounts (the runtime manager under test alone). */
  pod?: RuntimePodOptions;
  /**
   * The node: pod log directories (created before the sandbox, listed to resume a restart count),
   * --resolv-conf, httpGet lifecycle hooks.
   */
  host: RuntimeHost;
  /** The kubelet's event recorder, read per event (it exists once the recorder phase ran). Default none. */
  events?: () => EventRecorder | undefined;
  /** --image-credential-provider-config's plugins. Default none. */
  imageCredentials?: ImageCredentialProviders;
  /** What each container was last started or updated with (openActuatedState). Default: in memory only. */
  actuated?: ActuatedState;
}

function isNothingToDo(actions: PodActions): boolean {
  return !actions.killPod && !actions.createSandbox && actions.containersToKill.length === 0 &&
    actions.initContainersToStart.length === 0 && actions.containersToStart.length === 0 &&
    (actions.ephemeralContainersToStart ?? []).length === 0 && !hasResizeWork(actions);
}

const noActions: PodActions = { killPod: false, createSandbox: false, attempt: 0, initContainersToStart: [], containersToStart: [], containersToKill: [] };

function sandboxIPs(network: { ip: string; additional_ips?: { ip: string }[] } | null): string[] {
  return network ? [network.ip, ...(network.additional_ips ?? []).map((a) => a.ip)].filter((ip) => ip !== '') : [];
}

export function createRuntimeManager(opts: RuntimeManagerOptions): RuntimeManager {
  const { cri, clock } = opts;
  const log = opts.logger.child({ component: 'runtimeManager' });
  const node = opts.node ?? {};
  const recordEvent = (event: EventRequest | undefined) => {
    if (event) opts.events?.()?.recordEvent(event);
  };
  const credentials = { ...(opts.pod?.sources ? { secrets: opts.pod.sources } : {}), ...(opts.imageCredentials ? { providers: opts.imageCredentials } : {}) };
  const images = createImageManager({ cri, clock, logger: log, recordEvent, credentials });
  const crashBackoff = new Backoff(opts.containerBackOff ?? containerRestartBackoffPolicy);
  const { host } = opts;
  const resolvConfPath = node.resolvConf ?? '/etc/resolv.conf';
  const userNamespaces = createUserNamespaces({
    gateOn: node.userNamespaces ?? true,
    runtimeHandlers: async () => handlersFromStatus(await cri.runtime.status(false)),
    rangesInUse: () => rangesInRuntime(cri.runtime),
  });

  async function nodeContext(): Promise<NodeRuntimeContext> {
    // Read on every sandbox, as Go does: resolv.conf may change while the kubelet runs.
    const hostDns = resolvConfPath === '' ? undefined : parseResolvConf(await host.readTextFile(resolvConfPath));
    return {
      podLogsDir: opts.podLogsDir,
      dns: { clusterDNS: node.clusterDNS ?? [], clusterDomain: node.clusterDomain ?? '', nodeIPs: node.hostIPs ?? [], ...(hostDns ? { hostDns } : {}) },
      hostIPs: node.hostIPs ?? [],
      memoryCapacityBytes: node.memoryCapacityBytes ?? host.memoryCapacityBytes(),
      ...(node.nodeAllocatable ? { nodeAllocatable: node.nodeAllocatable } : {}),
      ...(node.cpuCfsQuota !== undefined ? { cpuCfsQuota: node.cpuCfsQuota } : {}),
      ...(node.cpuCfsQuotaPeriodMicros !== undefined ? { cpuCfsQuotaPeriodMicros: node.cpuCfsQuotaPeriodMicros } : {}),
      ...(node.lookup ? { lookup: node.lookup } : {}),
      ...(node.seccomp ? { seccomp: node.seccomp } : {}),
    };
  }

  const killer = { cri, clock, log, httpGet: host.httpGet, recordEvent };
  const podOpts = opts.pod;
  const starter = {
    ...killer, images, crashBackoff, listFiles: (dir: string) => host.listFiles(dir),
    ...(podOpts ? { mounts: { rootDir: podOpts.rootDir, files: podOpts.files, clusterDomain: node.clusterDomain ?? '', selinuxEnabled: host.selinuxEnabled(), log, ...(podOpts.volumes ? { volumes: podOpts.volumes } : {}) } } : {}),
    ...(podOpts?.sources && !node.lookup ? { envSources: podOpts.sources } : {}),
    ...(node.serviceEnvFor ? { serviceEnvFor: node.serviceEnvFor } : {}),
    ...(node.sharedCpus ? { sharedCpus: node.sharedCpus } : {}),
    ...(node.deviceRuntime ? { deviceRuntime: node.deviceRuntime } : {}),
    ...(node.dra ? { dra: node.dra } : {}),
    ...(node.envFiles !== undefined ? { envFiles: node.envFiles } : {}),
  };

  const actuated = opts.actuated ?? actuatedState();
  const resourceContext = (): ResourceContext => ({
    memoryCapacityBytes: node.memoryCapacityBytes ?? host.memoryCapacityBytes(),
    ...(node.cpuCfsQuota !== undefined ? { cpuCfsQuota: node.cpuCfsQuota } : {}),
    ...(node.cpuCfsQuotaPeriodMicros !== undefined ? { cpuCfsQuotaPeriodMicros: node.cpuCfsQuotaPeriodMicros } : {}),
  });
  const resizer = { cri, clock, log, actuated, resources: resourceContext, ...(node.podCgroup ? { podCgroup: node.podCgroup } : {}) };

  /**
   * A record that cannot be written leaves the container running: without it the next sync takes
   * the container at what the runtime reports (actuated-resources.ts).
   */
  async function recordActuated(pod: Pod, container: Container | EphemeralContainer): Promise<void> {
    try {
      await actuated.set(pod.metadata.uid, container.name, desiredResourceAmounts(pod, container));
    } catch (err) {
      log.error({ err, pod: podRef(pod), podUid: pod.metadata.uid, containerName: container.name }, 'Failed to record the actuated resources of a container');
    }
  }

  // Read once, as Go's AppArmor validator reads the host when the kubelet starts.
  let hostAppArmor: boolean | undefined;

  /** The pod is refused by canRunPod: what runs of it is stopped, and the sync fails with why. */
  async function blockPod(pod: Pod, syncOpts: SyncPodOptions, refusal: { reason: string; message: string }): Promise<SyncPodResult> {
    const ref = podRef(pod);
    log.info({ pod: ref, podUid: pod.metadata.uid, reason: refusal.reason, message: refusal.message }, 'Pod cannot be run; stopping it');
    const status = syncOpts.podStatus ?? (await readPodStatus(cri, pod.metadata.uid, opts.pod?.files));
    const killed = await killPodContainersAndSandboxes(killer, pod, status);
    const refused: SyncStepResult = {
      step: 'canRunPod', target: ref, ok: false, reason: refusal.reason, durationMs: 0,
      error: { code: 'KLT_ERR_POD_NOT_RUNNABLE', message: `pod cannot be run: ${refusal.message}`, retryable: true },
    };
    return { podUid: pod.metadata.uid, ok: false, actions: noActions, steps: [...killed, refused], blocked: refusal };
  }

  /**
   * SyncPod, then the pod's status as it left it: read here rather than by the pod worker's own
   * effect, one trip through the actor system a sync instead of two. A sync that did nothing already
   * hands back the view it planned from. A read that fails is left to the worker.
   */
  async function syncPod(pod: Pod, syncOpts: SyncPodOptions = {}): Promise<SyncPodResult> {
    const result = await applyPodActions(pod, syncOpts);
    if (result.podStatus !== undefined) return withResizeProgress(pod, result);
    // Stamped before the read, as the worker stamps its own.
    const observedAtMs = clock.now();
    try {
      return withResizeProgress(pod, { ...result, podStatus: { runtimeStatus: await readPodStatus(cri, pod.metadata.uid, opts.pod?.files), observedAtMs } });
    } catch {
      return result;
    }
  }

  /** The pod given to a sync is the allocated pod: a resize is in progress while its running containers run with other amounts. */
  function withResizeProgress(pod: Pod, result: SyncPodResult): SyncPodResult {
    if (!result.podStatus || result.blocked || !isResizeAllowed(pod)) return result;
    const status = result.podStatus.runtimeStatus;
    const running = status.containers.filter((c) => c.state === 'running');
    const current = actuatedForPod(pod, running, actuated.containers(pod.metadata.uid), resourceContext());
    return isPodResizeInProgress(pod, status, current) ? { ...result, resizeInProgress: true } : result;
  }

  async function applyPodActions(pod: Pod, syncOpts: SyncPodOptions): Promise<SyncPodResult> {
    const uid = pod.metadata.uid;
    const ref = podRef(pod);
    const steps: SyncStepResult[] = [];
    let resized: SyncPodResult['resize'];
    const done = (actions: PodActions, sandboxId?: string): SyncPodResult => ({
      podUid: uid,
      ok: steps.every((s) => s.ok),
      actions,
      ...(sandboxId !== undefined ? { sandboxId } : {}),
      steps,
      ...(resized ? { resize: resized } : {}),
    });

    hostAppArmor ??= host.appArmorEnabled();
    const runnable = admitAppArmor(pod, hostAppArmor);
    if (!runnable.admit) return blockPod(pod, syncOpts, runnable);

    // Step 1: Compute sandbox and container changes.
    // Stamped before the read, as the pod worker stamps its own status reads (a view handed in is
    // taken as current from now, as Go takes its PLEG cache).
    const observedAtMs = clock.now();
    const planned = await runStep(clock, 'computePodActions', ref, 'PodStatusError', async () => {
      const status = syncOpts.podStatus ?? (await readPodStatus(cri, uid, opts.pod?.files));
      const running = status.containers.filter((c) => c.state === 'running');
      const resize = isResizeAllowed(pod) ? { actuated: actuatedForPod(pod, running, actuated.containers(uid), resourceContext()) } : undefined;
      return { status, actions: computePodActions(pod, status, syncOpts.probes, resize) };
    });
    steps.push(planned.result);
    if (!planned.value) return done(noActions);
    const { status, actions } = planned.value;
    log.debug({ pod: ref, podUid: uid, actions }, 'computePodActions got for pod');

    // Step 2: Kill the pod if the sandbox has changed (or nothing is left to run).
    if (actions.killPod) {
      // At Go's verbosity for this line (4), as for "Created PodSandbox for pod": a pod start logs
      // nothing at the default verbosity, and a burst of them writes no line each.
      log.trace({ pod: ref, podUid: uid, createSandbox: actions.createSandbox }, 'Stopping PodSandbox for pod');
      if (actions.createSandbox && actions.sandboxId !== undefined) recordEvent(podEvent(pod, 'Normal', EventReason.SandboxChanged, ContainerEventMessage.sandboxChanged()));
      const killed = await killPodContainersAndSandboxes(killer, pod, status);
      steps.push(...killed);
      if (killed.some((s) => !s.ok)) return done(actions, actions.sandboxId);
      if (actions.createSandbox) await purgeInitContainers(killer, pod, status);
    } else {
      // Step 3: kill any running containers in this pod which are not to keep.
      const spec = specsByName(pod);
      for (const k of actions.containersToKill) {
        log.info({ pod: ref, containerName: k.name, containerId: k.id, reason: k.reason, message: k.message }, 'Killing unwanted container for pod');
        const { result } = await runStep(clock, 'killContainer', k.name, 'KillContainerError', () => killContainer(killer, pod, spec.get(k.name), k, status.ips));
        steps.push({ ...result, id: k.id });
        if (!result.ok) return done(actions, actions.sandboxId);
      }
    }

    // Keep terminated init containers in check (an optimization: GC would remove them later). After
    // a purge there is nothing left to prune.
    const pruned = actions.killPod && actions.createSandbox ? 0 : await pruneInitContainers(killer, pod, status);

    // Nothing to create, start or kill (a periodic resync of a running pod, a container in back-off):
    // the status planned from is still the pod's status, handed back so the worker need not read it
    // again. Go builds the sandbox config (ConfigPodSandbox) on every sync; it serves only starts,
    // so it is skipped here.
    if (isNothingToDo(actions) && pruned === 0) {
      return { ...done(actions, actions.sandboxId), podStatus: { runtimeStatus: status, observedAtMs } };
    }

    // Step 4: Create a sandbox for the pod if necessary.
    let sandboxId = actions.sandboxId;
    // Go's SyncPod starts containers with the API status's pod IPs, a host-network pod's being the
    // node's; its HTTP hooks ask the runtime, which reports none for a host-network sandbox.
    let ownIPs = status.ips;
    let podIPs = effectivePodIPs(pod, ownIPs, node.hostIPs ?? []);
    const configStep = actions.createSandbox ? 'createPodSandbox' : 'configPodSandbox';
    const sandboxFailed = (error: { message: string } | undefined) => {
      log.error({ pod: ref, podUid: uid, err: error }, 'CreatePodSandbox for pod failed');
      recordEvent(podEvent(pod, 'Warning', EventReason.FailedCreatePodSandBox, ContainerEventMessage.failedCreateSandbox(error?.message ?? 'unknown error')));
    };
    const configured = await runStep(clock, configStep, ref, actions.createSandbox ? 'CreatePodSandboxError' : 'ConfigPodSandboxError', async () => {
      // Go looks the handler up (and the user namespace) while generating the config, on every sync that starts something.
      const runtimeHandler = runtimeHandlerFor(pod, node.runtimeClasses);
      const userNamespace = await userNamespaces.forPod(pod, runtimeHandler);
      const ctx: NodeRuntimeContext = { ...(await nodeContext()), ...(userNamespace ? { userNamespace } : {}) };
      const cgroupParent = actions.createSandbox && node.ensurePodCgroup ? await node.ensurePodCgroup(pod) : node.cgroupParentFor?.(pod);
      return { ctx, runtimeHandler, sandboxConfig: generatePodSandboxConfig(pod, actions.attempt, ctx, cgroupParent) };
    });
    if (!configured.value) {
      steps.push(configured.result);
      if (actions.createSandbox) sandboxFailed(configured.result.error);
      return done(actions, sandboxId);
    }
    const { ctx, runtimeHandler, sandboxConfig } = configured.value;

    if (actions.createSandbox && node.dra && (pod.spec.resourceClaims ?? []).length > 0) {
      // Go prepares the claims before the sandbox; a failure is an event and the sync ends with no
      // result, to be tried again at the next one.
      try {
        await node.dra.prepare(pod);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log.error({ pod: ref, podUid: uid, err }, 'Failed to prepare dynamic resources');
        recordEvent(podEvent(pod, 'Warning', EventReason.FailedPrepareDynamicResources, ContainerEventMessage.failedPrepareDynamicResources(message)));
        return done(actions);
      }
    }

    if (actions.createSandbox) {
      const created = await runStep(clock, 'createPodSandbox', ref, 'CreatePodSandboxError', async () => {
        if (sandboxConfig.log_directory) await host.makeDirectory(sandboxConfig.log_directory);
        if (runtimeHandler !== '') log.info({ pod: ref, runtimeHandler }, 'Running pod with runtime handler');
        const id = await cri.runtime.runPodSandbox(sandboxConfig, runtimeHandler);
        const sandboxStatus = (await cri.runtime.podSandboxStatus(id)).status;
        if (!sandboxStatus) throw new KubeletError('KLT_ERR_CRI_FAILED', 'pod sandbox status is nil');
        return { id, ips: sandboxIPs(sandboxStatus.network) };
      });
      steps.push(created.value ? { ...created.result, id: created.value.id } : created.result);
      if (!created.value) {
        sandboxFailed(created.result.error);
        return done(actions);
      }
      sandboxId = created.value.id;
      // A host-network sandbox reports no IP of its own: keep what the status had, as Go does.
      ownIPs = created.value.ips;
      if (!pod.spec.hostNetwork) podIPs = ownIPs;
      log.trace({ pod: ref, podUid: uid, podSandboxId: sandboxId }, 'Created PodSandbox for pod');
    }

    if (sandboxId === undefined) return done(actions); // nothing to start containers in (a pod only being killed)
    const startCtx = { pod, status, sandboxId, sandboxConfig, node: ctx, podIPs, sandboxIPs: ownIPs, ...(syncOpts.assignment ? { assignment: syncOpts.assignment } : {}),
      ...(syncOpts.imagePullBackOffEnds ? { imagePullBackOffEnds: syncOpts.imagePullBackOffEnds } : {}) };
    const start = async (step: 'startInitContainer' | 'startContainer', container: Container | EphemeralContainer): Promise<boolean> => {
      const result = await startContainer(starter, step, container, startCtx);
      steps.push(result);
      // Started with the allocated resources: they are actuated (ephemeral containers have none).
      if (result.ok && !findEphemeralContainer(pod, container.name)) await recordActuated(pod, container);
      return result.ok;
    };

    // Step 5: start ephemeral containers. They go before init containers so that one can debug a pod
    // whose initialization is stuck (though none can exist before the pod has started).
    for (const name of actions.ephemeralContainersToStart ?? []) {
      const ephemeral = findEphemeralContainer(pod, name);
      if (ephemeral) await start('startContainer', ephemeral);
    }

    // Step 6: start init containers, in order. A sidecar that fails to start is skipped (it is
    // retried next sync); an ordinary init container that fails ends the sync.
    for (const index of actions.initContainersToStart) {
      const init = pod.spec.initContainers?.[index];
      if (!init) continue;
      if (!(await start('startInitContainer', init)) && !isRestartableInitContainer(init)) return done(actions, sandboxId);
    }

    // Step 7: resize running containers in place; a failure stops the resize, not the sync.
    if (hasResizeWork(actions)) {
      const resize = await resizePod(resizer, pod, actions, sandboxId);
      steps.push(...resize.steps);
      resized = resize.outcome;
    }

    // Step 8: start containers in containersToStart; a failure does not stop the others.
    for (const name of actions.containersToStart) {
      const container = pod.spec.containers.find((c) => c.name === name);
      if (container) await start('startContainer', container);
    }
    return done(actions, sandboxId);
  }

  return {
    syncPod,

    async killPod(pod, gracePeriodSeconds) {
      const status = await readPodStatus(cri, pod.metadata.uid, opts.pod?.files);
      // A runtime-only pod (an orphan) comes with its uid only: its names are the runtime's labels.
      const target = pod.metadata.name === '' ? { ...pod, metadata: { ...pod.metadata, name: status.name, namespace: status.namespace } } : pod;
      const steps = await killPodContainersAndSandboxes(killer, target, status, gracePeriodSeconds);
      // Go unprepares the claims once every container is stopped, before the final status is sent.
      if (steps.every((s) => s.ok) && node.dra && (pod.spec.resourceClaims ?? []).length > 0) {
        const dra = node.dra;
        const { result } = await runStep(clock, 'unprepareResources', podRef(target), 'UnprepareResourcesError', () => dra.unprepare(pod));
        steps.push(result);
      }
      return { podUid: pod.metadata.uid, ok: steps.every((s) => s.ok), steps };
    },

    async removePod(uid) {
      const status = await readPodStatus(cri, uid, opts.pod?.files);
      const steps: SyncStepResult[] = [];
      for (const c of status.containers) {
        const { result } = await runStep(clock, 'removeContainer', c.name, 'RemoveContainerError', () => cri.runtime.removeContainer(c.id));
        steps.push({ ...result, id: c.id });
      }
      for (const s of status.sandboxes) {
        const { result } = await runStep(clock, 'removePodSandbox', s.id, 'RemovePodSandboxError', () => cri.runtime.removePodSandbox(s.id));
        steps.push({ ...result, id: s.id });
      }
      if (steps.every((s) => s.ok)) {
        userNamespaces.release(uid);
        await actuated.removePod(uid).catch((err: unknown) => log.error({ err, podUid: uid }, 'Failed to remove pod from actuated state'));
      }
      return { podUid: uid, ok: steps.every((s) => s.ok), steps };
    },

    getPodStatus: (uid) => readPodStatus(cri, uid, opts.pod?.files),

    async execSync(containerId, cmd, timeoutSeconds) {
      const response = await cri.runtime.execSync(containerId, cmd, timeoutSeconds);
      return { stdout: response.stdout.toString('utf8'), stderr: response.stderr.toString('utf8'), exitCode: response.exit_code };
    },

    imageFsInfo: () => cri.images.imageFsInfo(),
  };
}
