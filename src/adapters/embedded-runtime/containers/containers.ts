/**
 * Containers: host processes started through detached shims (shim.ts). As containerd's CRI plugin
 * does: stopping or removing an unknown id succeeds, the status of an unknown id is NOT_FOUND, and
 * a failed start leaves the container EXITED with reason StartError and exit code 128.
 */
import { cdiDeviceEnv } from './cdi-devices.js';
import { rm, stat } from 'node:fs/promises';
import { KubeletError } from '../../../domain/errors.js';
import type { ContainerConfig__Output } from '../../../generated/runtime/v1/ContainerConfig.js';
import type { ContainerFilter__Output } from '../../../generated/runtime/v1/ContainerFilter.js';
import type { ContainerStatusResponse } from '../../../generated/runtime/v1/ContainerStatusResponse.js';
import type { LinuxContainerResources__Output } from '../../../generated/runtime/v1/LinuxContainerResources.js';
import type { PodSandboxConfig__Output } from '../../../generated/runtime/v1/PodSandboxConfig.js';
import { containerState, toContainer, type ListedContainer } from './container-answers.js';
import { checkContainerMounts, prepareContainerMounts } from '../mounts/container-mounts.js';
import { containerArgv, containerEnv, containerLogPath, containerUser } from './container-spec.js';
import { runtimeUid } from '../images/image-store.js';
import { refuseSeccompFilter } from './seccomp-refusal.js';
import { refuseUnenforcedContainerSecurity } from './security-refusals.js';
import { refuseDevices, refuseUserNamespace } from './sandbox-refusals.js';
import { DEFAULT_MAX_LOG_LINE_BYTES } from '../shim/cri-log-writer.js';
import { filterContainers, matchesLabelSelector } from './filters.js';
import { newId } from '../state/new-id.js';
import { EXIT_POLL_MS, exists, sleep, stopLocked } from './processes.js';
import { isSameProcessAlive } from '../shim/proc-stat.js';
import type { ContainerRecord } from '../state/records.js';
import type { RuntimeState } from '../state/runtime-state.js';
import { launchThroughShim } from '../shim/shim-launcher.js';
import { containerResources, makeContainerCgroup, reportedResources, removeContainerCgroup, updateContainerCgroup } from './container-cgroup.js';
import { REOPEN_LOG_SIGNAL, type LaunchSpec } from '../shim/shim-protocol.js';

/** runc's exit code for a process that could not be started, which containerd reports with StartError. */
const START_ERROR_EXIT_CODE = 128;
/** ReopenContainerLog waits this long for the shim to have the log file open again. */
const REOPEN_WAIT_MS = 2_000;

export async function createContainer(
  state: RuntimeState, podSandboxId: string, config: ContainerConfig__Output | null, sandboxConfig: PodSandboxConfig__Output | null,
): Promise<string> {
  const sandbox = state.findSandbox(podSandboxId);
  if (!sandbox) throw new KubeletError('KLT_ERR_CRI_NOT_FOUND', `failed to find sandbox id ${JSON.stringify(podSandboxId)}: not found`);
  const metadata = config?.metadata;
  if (!config || !metadata?.name) throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', 'container config must include metadata with a name');
  refuseSeccompFilter('container', config.linux?.security_context?.seccomp);
  refuseUnenforcedContainerSecurity(config.linux?.security_context, runtimeUid());
  refuseUserNamespace('container', config.linux?.security_context?.namespace_options);
  refuseDevices(config.devices);
  if (sandbox.state !== 'SANDBOX_READY') {
    throw new KubeletError('KLT_ERR_CRI_FAILED', `sandbox ${sandbox.id} is in SANDBOX_NOTREADY state: cannot create containers in it`);
  }
  const imageName = config.image?.image ?? '';
  const image = state.options.images.find(imageName);
  if (!image) throw new KubeletError('KLT_ERR_CRI_NOT_FOUND', `failed to resolve image ${JSON.stringify(imageName)}: not found`);
  const attempt = metadata.attempt ?? 0;
  const clash = state.containersOf(sandbox.id).find((c) => c.metadata.name === metadata.name && c.metadata.attempt === attempt);
  if (clash) {
    throw new KubeletError('KLT_ERR_CRI_FAILED', `failed to reserve container name ${JSON.stringify(`${metadata.name}_${attempt}`)} in sandbox ${sandbox.id}: name is reserved for ${clash.id}`);
  }
  const logDirectory = sandbox.log_directory || sandboxConfig?.log_directory || '';
  const record: ContainerRecord = {
    id: newId(),
    pod_sandbox_id: sandbox.id,
    metadata: { name: metadata.name, attempt },
    image: { image: image.repo_tags[0] ?? imageName, annotations: { ...config.image?.annotations } },
    image_ref: image.id,
    labels: { ...config.labels },
    annotations: { ...config.annotations },
    argv: containerArgv(config),
    env: { ...containerEnv(config, sandbox), ...(await cdiDeviceEnv((config.CDI_devices ?? []).map((d) => d.name), state.options.cdiSpecDirs, state.options.logger)) },
    working_dir: config.working_dir || '/',
    ...containerUser(config),
    log_path: containerLogPath(logDirectory, config.log_path ?? ''),
    mounts: (config.mounts ?? []).map((m) => ({ ...m })),
    ...(containerResources(config.linux?.resources) ? { resources: containerResources(config.linux?.resources)! } : {}),
    stdin: config.stdin === true,
    stdin_once: config.stdin_once === true,
    tty: config.tty === true,
    phase: 'created',
    created_at: state.options.nowNs().toString(),
    started_at: '0',
    finished_at: '0',
    exit_code: 0,
    reason: '',
    message: '',
  };
  await checkContainerMounts(state, record);
  state.containers.set(record.id, record);
  await state.containerStore.put(record);
  return record.id;
}

export async function startContainer(state: RuntimeState, id: string): Promise<void> {
  const container = state.requireContainer(id);
  await state.locks.run(container.id, async () => {
    await state.refresh(container);
    if (container.phase !== 'created') {
      throw new KubeletError('KLT_ERR_CRI_FAILED', `container ${container.id} is in ${containerState(container)} state: only a created container can be started`);
    }
    const sandbox = state.sandboxes.get(container.pod_sandbox_id);
    if (!sandbox || sandbox.state !== 'SANDBOX_READY') {
      throw new KubeletError('KLT_ERR_CRI_FAILED', `sandbox ${container.pod_sandbox_id} is not ready: cannot start container ${container.id}`);
    }
    try {
      let mounted: Pick<LaunchSpec, 'mountNamespace'> = {};
      let command = container.argv;
      let env = container.env;
      if (container.mounts.length > 0) {
        // The holder checks the working directory, in the container's view of the file system.
        const prepared = await prepareContainerMounts(state, container);
        if (prepared.createdOnHost.length > 0) {
          container.mount_points_created_on_host = prepared.createdOnHost;
          state.options.logger.warn({ containerId: container.id, paths: prepared.createdOnHost }, 'Created mount points on the host');
        }
        ({ command, env } = prepared.spec);
        mounted = { mountNamespace: prepared.spec.mountNamespace };
      } else {
        await requireDirectory(container.working_dir);
      }
      const cgroupProcs = await makeContainerCgroup(state, sandbox, container);
      const launched = await launchThroughShim(state.options.shim, state.shimDir(container.id), {
        command,
        env,
        cwd: container.working_dir,
        // No log requested: the output goes nowhere, as with containerd.
        logPath: container.log_path || '/dev/null',
        maxLineBytes: state.options.maxLogLineBytes ?? DEFAULT_MAX_LOG_LINE_BYTES,
        ...(container.run_as_user !== undefined ? { uid: container.run_as_user } : {}),
        ...(container.run_as_group !== undefined ? { gid: container.run_as_group } : {}),
        ...mounted,
        ...(container.stdin ? { stdin: true, stdinOnce: container.stdin_once === true } : {}),
        ...(cgroupProcs.length > 0 ? { cgroupProcs } : {}),
      });
      container.phase = 'running';
      container.process = launched.container;
      container.shim = launched.shim;
      container.started_at = launched.startedAt;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      container.phase = 'exited';
      container.exit_code = START_ERROR_EXIT_CODE;
      container.reason = 'StartError';
      container.message = message;
      container.finished_at = state.options.nowNs().toString();
      await state.containerStore.put(container);
      throw err instanceof KubeletError ? err : new KubeletError('KLT_ERR_CRI_FAILED', message, { cause: err });
    }
    await state.containerStore.put(container);
    state.options.logger.info({ containerId: container.id, pid: container.process?.pid }, 'Started container');
  });
}

/**
 * SIGTERM to the process group, SIGKILL after timeoutSeconds (0: at once). Unknown or exited: no-op.
 * The group, not just the main process, because there is no PID namespace whose init would take the
 * rest down: see the header of index.ts for how this differs from containerd.
 */
export async function stopContainer(state: RuntimeState, id: string, timeoutSeconds: number): Promise<void> {
  const container = state.findContainer(id);
  if (!container) return;
  await state.locks.run(container.id, () => stopLocked(state, container, timeoutSeconds));
}

export async function removeContainer(state: RuntimeState, id: string): Promise<void> {
  const container = state.findContainer(id);
  if (!container) return;
  await state.locks.run(container.id, async () => {
    if (!state.containers.has(container.id)) return; // removed while we waited for the lock
    await stopLocked(state, container, 0);
    state.containers.delete(container.id);
    state.exits.forget(container.id);
    await state.containerStore.delete(container.id);
    await rm(state.shimDir(container.id), { recursive: true, force: true });
    await removeContainerCgroup(state, container);
    // The log file stays: the kubelet owns log cleanup (containerd does not delete logs either).
  });
}

/** The stats filter selects containers by id, sandbox and labels too, so it is listed through here. */
type ContainerSelector = Pick<ContainerFilter__Output, 'id' | 'pod_sandbox_id' | 'label_selector'> & Partial<Pick<ContainerFilter__Output, 'state'>>;

export async function listContainers(state: RuntimeState, filter: ContainerSelector | null): Promise<ListedContainer[]> {
  await state.refreshAll();
  if (!filter) return state.allContainers.keep([...state.containers.values()].map(toContainer));
  // One pod's containers (a pod worker's status read): select by label before building answers.
  const selected = [...state.containers.values()].filter((c) => matchesLabelSelector(c.labels, filter.label_selector));
  const resolved = {
    ...filter,
    id: filter.id ? state.findContainer(filter.id)?.id ?? filter.id : '',
    pod_sandbox_id: filter.pod_sandbox_id ? state.findSandbox(filter.pod_sandbox_id)?.id ?? filter.pod_sandbox_id : '',
  };
  return filterContainers(selected.map(toContainer), resolved);
}

export async function containerStatus(state: RuntimeState, id: string, verbose: boolean): Promise<ContainerStatusResponse> {
  const container = state.requireContainer(id);
  await state.refresh(container);
  const status = {
    ...toContainer(container),
    started_at: container.started_at,
    finished_at: container.finished_at,
    exit_code: container.exit_code,
    reason: container.reason,
    message: container.message,
    mounts: container.mounts,
    log_path: container.log_path,
    resources: reportedResources(container.resources),
  };
  const info: Record<string, string> = verbose
    ? { info: JSON.stringify({ pid: container.process?.pid ?? 0, shimPid: container.shim?.pid ?? 0, sandboxID: container.pod_sandbox_id, argv: container.argv }) }
    : {};
  return { status, info };
}

/** New linux.resources: applied to the container's cgroup when it has one, kept on its record either way. */
export async function updateContainerResources(state: RuntimeState, id: string, linux: LinuxContainerResources__Output | null | undefined): Promise<void> {
  const container = state.requireContainer(id);
  await state.locks.run(container.id, () => updateContainerCgroup(state, container, containerResources(linux)));
}

/** Asks the shim to re-open the log file (after the kubelet rotated it) and waits until it has. */
export async function reopenContainerLog(state: RuntimeState, id: string): Promise<void> {
  const container = state.requireContainer(id);
  await state.refresh(container);
  if (container.phase !== 'running' || !container.shim || !isSameProcessAlive(container.shim)) {
    throw new KubeletError('KLT_ERR_CRI_FAILED', `container ${container.id} is not running`);
  }
  if (!container.log_path) return;
  process.kill(container.shim.pid, REOPEN_LOG_SIGNAL);
  const deadline = Date.now() + REOPEN_WAIT_MS;
  while (!(await exists(container.log_path))) {
    if (Date.now() > deadline) throw new KubeletError('KLT_ERR_CRI_FAILED', `container ${container.id}: log ${container.log_path} was not reopened`);
    await sleep(EXIT_POLL_MS);
  }
}

async function requireDirectory(path: string): Promise<void> {
  let isDirectory = false;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory) {
    throw new KubeletError('KLT_ERR_CRI_FAILED', `failed to start container: working directory ${JSON.stringify(path)} does not exist on the host (the embedded runtime runs containers as host processes and does not create it)`);
  }
}
