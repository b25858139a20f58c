/**
 * Starting one container of a pod (Go's SyncPod `start` helper and startContainer): crash-loop
 * back-off, ensure the image, generate the config, CreateContainer, StartContainer, postStart hook.
 * The failure's reason follows how far it got (ErrImagePull…, CreateContainerConfigError,
 * CreateContainerError, RunContainerError, PostStartHookError), as the container's waiting reason
 * will show it. Go's events go with each step: BackOff, the image's, Created, Started, and Failed
 * ("Error: …") or FailedPostStartHook when a step fails.
 */
import type { DraClaimManager } from '../../ports/dra-claims.js';
import { KubeletError } from '../../domain/errors.js';
import type { Container, EphemeralContainer, Pod } from '../../domain/pod/types.js';
import { namespaceTargetId } from '../../domain/runtime/ephemeral-containers.js';
import { Backoff } from '../../domain/runtime/backoff.js';
import { hashContainer } from '../../domain/runtime/container-hash.js';
import { containerLogDirectory } from '../../domain/pod/pod-paths.js';
import { generateContainerConfig, podLogsDirectory, restartCountFromLogFiles, type NodeRuntimeContext } from '../../domain/runtime/container-config.js';
import type { CriPodSandboxConfig } from '../../domain/runtime/cri-config.js';
import { findContainerStatus, type RuntimePodStatus } from '../../domain/runtime/pod-status.js';
import { needsImageUser, verifyRunAsNonRoot } from '../../domain/runtime/security-context.js';
import { makeEnvironmentVariables } from '../../domain/runtime/env.js';
import type { VolumeSources } from '../../ports/volume-sources.js';
import { killContainer } from './container-killer.js';
import { makeContainerDevices } from './container-devices.js';
import { makeContainerMounts, type ContainerMountDeps } from './container-mounts.js';
import { readContainerEnvFiles } from './env-files.js';
import { fetchEnvSources } from './env-sources.js';
import { ContainerEventMessage, containerEvent } from '../../domain/runtime/container-events.js';
import type { EventType } from '../../domain/status-manager/event-aggregation.js';
import { EventReason } from '../../domain/status-manager/event-reasons.js';
import type { ImageManager } from './image-manager.js';
import { runLifecycleHandler, type HookDeps } from './lifecycle-hooks.js';
import { podRef, runStep } from './step-runner.js';
import type { SyncStepResult } from '../../ports/runtime-manager.js';
import type { PodAssignment } from '../../domain/resource-managers/assignments.js';
import { containerCpuset } from '../../domain/resource-managers/container-cpuset.js';
import type { ContainerDeviceAllocator } from '../../ports/device-plugins.js';

export interface ContainerStarterDeps extends HookDeps {
  images: ImageManager;
  /** Shared across syncs: the restart back-off outlives any one sync. */
  crashBackoff: Backoff;
  /** Names of the regular files in a directory; [] when it does not exist. */
  listFiles: (dir: string) => Promise<string[]>;
  /** Volumes, /etc/hosts and the termination-message file; without it a container gets no mounts. */
  mounts?: ContainerMountDeps;
  /** The ConfigMap and Secret managers for env; without them (standalone) such references fail. */
  envSources?: VolumeSources;
  /** The pod's Service variables; without it (standalone) none. A throw is a CreateContainerConfigError. */
  serviceEnvFor?: (pod: Pod) => ReadonlyMap<string, string>;
  /** The static CPU manager's shared pool now (for containers without exclusive CPUs); without it, or undefined, no cpuset. */
  sharedCpus?: () => number[] | undefined;
  /** The device plugins' Allocate answers for a container's devices (ContainerDeviceAllocator); a throw is a CreateContainerConfigError. */
  deviceRuntime?: ContainerDeviceAllocator['containerDevices'];
  /** The DRA claim manager, for the CDI devices of the claims a container uses. */
  dra?: Pick<DraClaimManager, 'cdiDevices'>;
  /** The EnvFiles gate: `fileKeyRef` read from the pod's volume. Default on, as in Go v1.35; off, such a variable is '' (Go). */
  envFiles?: boolean;
}

/** What one sync knows about the pod when it starts containers. */
export interface PodStartContext {
  pod: Pod;
  status: RuntimePodStatus;
  sandboxId: string;
  sandboxConfig: CriPodSandboxConfig;
  node: NodeRuntimeContext;
  /** The pod's IPs for its containers' env (a host-network pod's are the node's). */
  podIPs: string[];
  /** The sandbox's own IPs (none for a host-network pod): where Go's HTTP hooks without a host go. */
  sandboxIPs: string[];
  /** What the resource managers gave the pod's containers at admission. */
  assignment?: PodAssignment;
  /** When each image's pull back-off ends (SyncPodOptions.imagePullBackOffEnds). */
  imagePullBackOffEnds?: Readonly<Record<string, number>>;
}

/** GetStableKey: the back-off follows a container spec, not a container instance. */
function crashBackoffKey(pod: Pod, container: Container): string {
  const ns = pod.metadata.namespace ?? 'default';
  return `${pod.metadata.name}_${ns}_${pod.metadata.uid}_${container.name}_${hashContainer(container).toString(16)}`;
}

function nanosToMillis(ns: string): number {
  return Number(BigInt(ns || '0') / 1_000_000n);
}

/** With no status to go by, resume the count from the container's log directory (Go does the same). */
async function restartCountFromLogs(deps: ContainerStarterDeps, ctx: PodStartContext, container: Container): Promise<number> {
  try {
    const dir = containerLogDirectory(ctx.sandboxConfig.log_directory ?? podLogsDirectory(ctx.node.podLogsDir, ctx.pod), container.name);
    return restartCountFromLogFiles(await deps.listFiles(dir));
  } catch (err) {
    deps.log.warn({ pod: podRef(ctx.pod), containerName: container.name, err }, 'Failed to calculate restartCount using log directory');
    return 0;
  }
}

/** An ephemeral container starts as a regular one, with its target's process namespace when it names one. */
export async function startContainer(deps: ContainerStarterDeps, step: 'startInitContainer' | 'startContainer', container: Container | EphemeralContainer, ctx: PodStartContext): Promise<SyncStepResult> {
  const { cri, clock, log, crashBackoff } = deps;
  const { pod, status } = ctx;
  const record = (type: EventType, eventReason: string, message: string) => deps.recordEvent?.(containerEvent(pod, container.name, type, eventReason, message));
  let reason = 'CrashLoopBackOff';
  let pulledWith: string | undefined;
  const { result, value } = await runStep(clock, step, container.name, () => reason, async () => {
    // doBackOff: measured from when the newest exited instance finished.
    const exited = status.containers.find((c) => c.name === container.name && c.state === 'exited');
    if (exited) {
      const key = crashBackoffKey(pod, container);
      if (crashBackoff.isInBackoffSince(key, nanosToMillis(exited.finishedAt), clock.now())) {
        const seconds = Math.round((crashBackoff.current(key) ?? 0) / 1000);
        record('Warning', EventReason.BackOffStartContainer, ContainerEventMessage.backOff(container.name, pod));
        throw new KubeletError('KLT_ERR_CONTAINER_BACKOFF', `back-off ${seconds}s restarting failed container=${container.name} pod=${podRef(pod)}`, { retryable: true });
      }
      crashBackoff.next(key, clock.now());
    }
    reason = 'ErrImagePull';
    const ensured = await deps.images.ensureImageExists(pod, container, ctx.sandboxConfig, ctx.imagePullBackOffEnds?.[container.image]);
    const imageRef = ensured.ref;
    if (ensured.pulledWith !== undefined) pulledWith = ensured.pulledWith;
    reason = 'CreateContainerConfigError';
    if (needsImageUser(pod, container)) {
      // getImageUser: only asked when runAsNonRoot has to be checked against the image.
      const image = (await cri.images.imageStatus({ image: imageRef })).image;
      const uid = image?.uid ? Number(image.uid.value) : undefined;
      verifyRunAsNonRoot(pod, container, { ...(uid !== undefined ? { uid } : {}), ...(image?.username ? { username: image.username } : {}) });
    } else {
      verifyRunAsNonRoot(pod, container, {});
    }
    const previous = findContainerStatus(status, container.name);
    const restartCount = previous ? previous.restartCount + 1 : await restartCountFromLogs(deps, ctx, container);
    const target = namespaceTargetId(container, status);
    if (target.error !== undefined) throw new KubeletError('KLT_ERR_CONTAINER_CONFIG', target.error);
    // Go's makeEnvironmentVariables: the Services first (waiting for their first list), then the sources.
    const serviceEnv = deps.serviceEnvFor?.(pod);
    const lookup = deps.envSources ? await fetchEnvSources(deps.envSources, pod, container) : undefined;
    const envFiles = (deps.envFiles ?? true) ? await readContainerEnvFiles(deps.mounts, pod, container) : undefined;
    const node: NodeRuntimeContext = { ...ctx.node, ...(lookup ? { lookup } : {}), ...(serviceEnv ? { serviceEnv } : {}), ...(envFiles ? { envFiles } : {}) };
    // subPathExpr expands against the container's env; it is built only for a mount that needs it.
    const env = () => makeEnvironmentVariables(pod, container, {
      podIPs: ctx.podIPs, hostIPs: node.hostIPs, ...(node.lookup ? { lookup: node.lookup } : {}), ...(node.serviceEnv ? { serviceEnv: node.serviceEnv } : {}),
      ...(node.nodeAllocatable ? { nodeAllocatable: node.nodeAllocatable } : {}), ...(node.envFiles ? { envFiles: node.envFiles } : {}),
    });
    const mounts = deps.mounts ? await makeContainerMounts(deps.mounts, pod, container, ctx.podIPs, env) : [];
    const devices = makeContainerDevices(deps.mounts?.volumes, pod, container);
    const cpuset = containerCpuset(ctx.assignment?.[container.name], deps.sharedCpus?.());
    // GetResources: the device plugins' answers for the devices admission gave the container.
    const held = ctx.assignment?.[container.name]?.devices;
    const deviceRuntime = held && deps.deviceRuntime && Object.keys(held).length > 0 ? await deps.deviceRuntime(pod.metadata.uid ?? '', container.name, held) : undefined;
    // GetResources: the CDI devices of the DRA claims it uses (a claim not prepared fails the config).
    const cdiDevices = deps.dra && (container.resources?.claims ?? []).length > 0 ? deps.dra.cdiDevices(pod, container) : undefined;
    const config = generateContainerConfig(pod, container, {
      restartCount, imageRef, podIPs: ctx.podIPs, mounts, devices, ...(target.id !== undefined ? { namespaceTargetId: target.id } : {}), ...(cpuset ? { cpuset } : {}), ...(deviceRuntime ? { deviceRuntime } : {}),
      ...(cdiDevices ? { cdiDevices } : {}),
    }, node);
    reason = 'CreateContainerError';
    const id = await cri.runtime.createContainer(ctx.sandboxId, config, ctx.sandboxConfig);
    record('Normal', EventReason.CreatedContainer, ContainerEventMessage.created(container.name));
    reason = 'RunContainerError';
    await cri.runtime.startContainer(id);
    record('Normal', EventReason.StartedContainer, ContainerEventMessage.started(container.name));
    reason = 'PostStartHookError';
    const postStart = container.lifecycle?.postStart;
    if (postStart) {
      // Runs to completion before the sync goes on, as in Go; a failure kills the container.
      try {
        await runLifecycleHandler(deps, pod, container, id, postStart, ctx.sandboxIPs);
      } catch (err) {
        log.warn({ pod: podRef(pod), containerName: container.name, containerId: id, err }, 'Failed to execute PostStartHook');
        record('Warning', EventReason.FailedPostStartHook, err instanceof Error ? err.message : String(err));
        await killContainer(deps, pod, container, { id, name: container.name, reason: 'FailedPostStartHook', message: 'FailedPostStartHook' }, ctx.sandboxIPs)
          .catch((killErr: unknown) => log.warn({ pod: podRef(pod), containerName: container.name, containerId: id, err: killErr }, 'Failed to kill container'));
        throw err;
      }
    }
    return id;
  });
  // Go logs no line here (its Started event is the record); ours is kept for --v=4.
  if (result.ok) log.trace({ pod: podRef(pod), containerName: container.name, containerId: value }, 'Started container');
  else {
    log.warn({ pod: podRef(pod), containerName: container.name, reason: result.reason, err: result.error }, 'Container start failed in pod');
    const failed = failedEventMessage(reason, result.reason, result.error?.message);
    if (failed !== undefined) record('Warning', EventReason.FailedToCreateContainer, failed);
  }
  // The pod worker counts a failed pull into the image's back-off from when it failed.
  const pullFailure = result.error?.code === 'KLT_ERR_IMAGE_PULL' ? { image: container.image, atMs: clock.now() } : undefined;
  return { ...result, ...(value !== undefined ? { id: value } : {}), ...(pulledWith !== undefined ? { pulledWith } : {}), ...(pullFailure ? { pullFailure } : {}) };
}

/**
 * Go's "Error: …" Failed event for how far the start got: the image's error by its reason
 * (ErrImagePull, ImagePullBackOff…), the others by their message. A back-off or a failed postStart
 * hook has its own event instead.
 */
function failedEventMessage(stage: string, reason: string | undefined, message: string | undefined): string | undefined {
  switch (stage) {
    case 'CrashLoopBackOff':
    case 'PostStartHookError':
      return undefined;
    case 'ErrImagePull':
      return ContainerEventMessage.error(reason ?? stage);
    default:
      return ContainerEventMessage.error(message ?? reason ?? stage);
  }
}
