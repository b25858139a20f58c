/**
 * runtime.v1.RuntimeService for host-process containers: sandboxes are records (no process, host
 * network), containers are processes started through detached shims (shim.ts). Behaviour follows what
 * containerd's CRI plugin was seen to do (lab NOTES §4): stopping or removing an unknown id succeeds, *Status of
 * unknown ids is NOT_FOUND, StopPodSandbox kills without grace, RemovePodSandbox removes the pod's
 * containers, a failed start leaves the container EXITED with reason StartError and exit code 128.
 *
 * Every answer is computed from the records after a refresh: a RUNNING container whose shim has written
 * exit.json becomes EXITED; one whose process and shim are both gone (killed behind our back, or the
 * machine rebooted) becomes EXITED with containerd's unknown exit code 255.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { hostname, networkInterfaces, userInfo } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { KUBELET_TS_VERSION } from '../../domain/config/version.js';
import { KubeletError } from '../../domain/errors.js';
import type {
  Container, ContainerConfig, ContainerFilter, ContainerState, ContainerStats, ContainerStatsFilter, ContainerStatusResponse,
  ExecSyncResponse, PodSandbox, PodSandboxConfig, PodSandboxFilter, PodSandboxStats, PodSandboxStatsFilter,
  PodSandboxStatusResponse, StatusResponse, VersionResponse,
} from '../../ports/cri.js';
import type { Logger } from '../../log.js';
import { readJsonFileSync } from './atomic-file.js';
import { DEFAULT_MAX_LOG_LINE_BYTES } from './cri-log-writer.js';
import { measureContainers, measureSandboxes } from './container-stats.js';
import { UNKNOWN_EXIT_CODE } from './exit-code.js';
import { runExecSync } from './exec-sync.js';
import { ExitWatch } from './exit-watch.js';
import { filterContainers, filterSandboxes, matchesLabelSelector } from './filters.js';
import type { ImageStore } from './image-store.js';
import { JsonRecordStore } from './json-record-store.js';
import { KeyedMutex } from './keyed-mutex.js';
import { isSameProcessAlive, type ProcessIdentity } from './proc-stat.js';
import type { ContainerRecord, SandboxRecord } from './records.js';
import { SameList } from './same-list.js';
import { launchThroughShim, type ShimCommand } from './shim-launcher.js';
import { EXIT_FILE, REOPEN_LOG_SIGNAL, STARTED_FILE, type ExitRecord, type StartedRecord } from './shim-protocol.js';

export const EMBEDDED_RUNTIME_NAME = 'kubelet-ts-embedded';
/** The runtime is part of kubelet-ts, so it carries kubelet-ts's version (containerd reports its own). */
export const EMBEDDED_RUNTIME_VERSION = KUBELET_TS_VERSION;

/** The image's default entrypoint, for every image: there are no image configs, only names. */
export const DEFAULT_ENTRYPOINT: readonly string[] = ['sh'];
/** The PATH an image config would give (busybox's and most distributions'). */
export const DEFAULT_CONTAINER_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** runc's exit code for a process that could not be started, which containerd reports with StartError. */
const START_ERROR_EXIT_CODE = 128;
const EXIT_POLL_MS = 20;
/** After SIGKILL a process group is gone in milliseconds; this only bounds a wedged (D-state) process. */
const KILL_WAIT_MS = 10_000;
/** ReopenContainerLog waits this long for the shim to have the log file open again. */
const REOPEN_WAIT_MS = 2_000;

export interface RuntimeServiceOptions {
  stateDir: string;
  images: ImageStore;
  shim: ShimCommand;
  logger: Logger;
  /** Epoch nanoseconds. */
  nowNs: () => bigint;
  maxLogLineBytes?: number;
  /**
   * The address every sandbox reports: containers share the host's network, so a pod's IP is the
   * host's. Default: the host's first non-internal IPv4 address, else 127.0.0.1. (With an empty IP
   * the kubelet, like Go's, would take the sandbox for broken and recreate it on every sync.)
   */
  podIP?: string;
}

/** The host's first non-internal IPv4 address, else loopback. */
export function hostPodIP(): string {
  for (const infos of Object.values(networkInterfaces())) {
    for (const info of infos ?? []) if (info.family === 'IPv4' && !info.internal) return info.address;
  }
  return '127.0.0.1';
}

export class EmbeddedRuntimeService {
  private readonly sandboxes = new Map<string, SandboxRecord>();
  private readonly containers = new Map<string, ContainerRecord>();
  private readonly sandboxStore: JsonRecordStore<SandboxRecord>;
  private readonly containerStore: JsonRecordStore<ContainerRecord>;
  private readonly locks = new KeyedMutex();
  /** The unfiltered lists last answered (the relist's), reused while unchanged. */
  private readonly allSandboxes = new SameList<PodSandbox>();
  private readonly allContainers = new SameList<Container>();
  private readonly exits: ExitWatch;
  private readonly shimRoot: string;
  private readonly podIP: string;

  private constructor(private readonly options: RuntimeServiceOptions) {
    this.podIP = options.podIP ?? hostPodIP();
    this.sandboxStore = new JsonRecordStore(join(options.stateDir, 'sandboxes'));
    this.containerStore = new JsonRecordStore(join(options.stateDir, 'containers'));
    this.shimRoot = join(options.stateDir, 'shims');
    // A monotonic clock: staleness is about real time passing, whatever clock stamps the records.
    this.exits = new ExitWatch(() => performance.now());
  }

  /** Stops watching the shims' directories; the containers keep running. */
  close(): void {
    this.exits.close();
  }

  /** Loads the records a previous runtime left, adopting containers whose processes still run. */
  static async open(options: RuntimeServiceOptions): Promise<EmbeddedRuntimeService> {
    const service = new EmbeddedRuntimeService(options);
    const sandboxes = await service.sandboxStore.loadAll();
    const containers = await service.containerStore.loadAll();
    for (const torn of [...sandboxes.torn, ...containers.torn]) {
      options.logger.warn({ file: torn.file, err: torn.error }, 'Skipping unreadable embedded runtime state file');
    }
    const bootId = currentBootId();
    for (const sandbox of sandboxes.records) {
      service.sandboxes.set(sandbox.id, sandbox);
      if (sandbox.state === 'SANDBOX_READY' && sandbox.boot_id && bootId && sandbox.boot_id !== bootId) {
        sandbox.state = 'SANDBOX_NOTREADY';
        await service.sandboxStore.put(sandbox);
      }
    }
    for (const container of containers.records) service.containers.set(container.id, container);
    let adopted = 0;
    for (const container of service.containers.values()) {
      await service.recoverInterruptedStart(container);
      await service.refresh(container);
      if (container.phase === 'running') adopted++;
    }
    options.logger.info({ sandboxes: service.sandboxes.size, containers: service.containers.size, adopted }, 'Loaded embedded runtime state');
    return service;
  }

  version(): VersionResponse {
    // `version` is the CRI's own API version string, which containerd also answers with 0.1.0.
    return { version: '0.1.0', runtime_name: EMBEDDED_RUNTIME_NAME, runtime_version: EMBEDDED_RUNTIME_VERSION, runtime_api_version: 'v1' };
  }

  status(verbose: boolean): StatusResponse {
    const conditions = [
      { type: 'RuntimeReady', status: true, reason: '', message: '' },
      // Host network only: there is no CNI to wait for, so the network is always ready.
      { type: 'NetworkReady', status: true, reason: '', message: '' },
    ];
    const info: Record<string, string> = verbose
      ? { config: JSON.stringify({ stateDir: this.options.stateDir, isolation: 'none', network: 'host' }) }
      : {};
    return { status: { conditions }, info };
  }

  // ---------------------------------------------------------------- sandboxes

  async runPodSandbox(config: PodSandboxConfig | null | undefined, runtimeHandler: string): Promise<string> {
    const metadata = config?.metadata;
    if (!config || !metadata || !metadata.name || !metadata.uid || !metadata.namespace) {
      throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', 'sandbox config must include metadata with name, uid and namespace');
    }
    const name = sandboxName(config);
    const clash = [...this.sandboxes.values()].find((s) => sandboxName(s) === name);
    if (clash) {
      throw new KubeletError('KLT_ERR_CRI_FAILED', `failed to reserve sandbox name ${JSON.stringify(name)}: name is reserved for ${clash.id}`);
    }
    const record: SandboxRecord = {
      id: newId(),
      metadata: { name: metadata.name, uid: metadata.uid, namespace: metadata.namespace, attempt: metadata.attempt ?? 0 },
      state: 'SANDBOX_READY',
      created_at: this.options.nowNs().toString(),
      labels: { ...config.labels },
      annotations: { ...config.annotations },
      log_directory: config.log_directory ?? '',
      hostname: config.hostname ?? '',
      runtime_handler: runtimeHandler,
      boot_id: currentBootId(),
    };
    this.sandboxes.set(record.id, record);
    await this.sandboxStore.put(record);
    this.options.logger.info({ podSandboxId: record.id, pod: `${metadata.namespace}/${metadata.name}` }, 'Ran pod sandbox');
    return record.id;
  }

  /** Kills whatever still runs in the pod, at once (the kubelet stops containers gracefully first). */
  async stopPodSandbox(id: string): Promise<void> {
    const sandbox = this.findSandbox(id);
    if (!sandbox) return;
    await Promise.all(this.containersOf(sandbox.id).map((c) => this.locks.run(c.id, () => this.stopLocked(c, 0))));
    if (sandbox.state !== 'SANDBOX_NOTREADY') {
      sandbox.state = 'SANDBOX_NOTREADY';
      await this.sandboxStore.put(sandbox);
    }
  }

  async removePodSandbox(id: string): Promise<void> {
    const sandbox = this.findSandbox(id);
    if (!sandbox) return;
    await this.stopPodSandbox(sandbox.id);
    for (const container of this.containersOf(sandbox.id)) await this.removeContainer(container.id);
    this.sandboxes.delete(sandbox.id);
    await this.sandboxStore.delete(sandbox.id);
  }

  podSandboxStatus(id: string, verbose: boolean): PodSandboxStatusResponse {
    const sandbox = this.requireSandbox(id);
    const status = {
      ...toPodSandbox(sandbox),
      network: { ip: this.podIP, additional_ips: [] },
      linux: { namespaces: { options: { network: 'NODE', pid: 'NODE', ipc: 'NODE' } } },
    };
    const info: Record<string, string> = verbose
      ? { info: JSON.stringify({ sandboxID: sandbox.id, logDirectory: sandbox.log_directory, hostname: sandbox.hostname || hostname() }) }
      : {};
    return { status, info };
  }

  listPodSandbox(filter: PodSandboxFilter | null | undefined): readonly PodSandbox[] {
    if (!filter) return this.allSandboxes.keep([...this.sandboxes.values()].map(toPodSandbox));
    const selected = [...this.sandboxes.values()].filter((s) => matchesLabelSelector(s.labels, filter.label_selector));
    const resolved = filter.id ? { ...filter, id: this.findSandbox(filter.id)?.id ?? filter.id } : filter;
    return filterSandboxes(selected.map(toPodSandbox), resolved);
  }

  // ---------------------------------------------------------------- containers

  async createContainer(podSandboxId: string, config: ContainerConfig | null | undefined, sandboxConfig: PodSandboxConfig | null | undefined): Promise<string> {
    const sandbox = this.findSandbox(podSandboxId);
    if (!sandbox) throw new KubeletError('KLT_ERR_CRI_NOT_FOUND', `failed to find sandbox id ${JSON.stringify(podSandboxId)}: not found`);
    if (!config?.metadata?.name) throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', 'container config must include metadata with a name');
    if (sandbox.state !== 'SANDBOX_READY') {
      throw new KubeletError('KLT_ERR_CRI_FAILED', `sandbox ${sandbox.id} is in SANDBOX_NOTREADY state: cannot create containers in it`);
    }
    const imageName = config.image?.image ?? '';
    const image = this.options.images.find(imageName);
    if (!image) throw new KubeletError('KLT_ERR_CRI_NOT_FOUND', `failed to resolve image ${JSON.stringify(imageName)}: not found`);
    const attempt = config.metadata.attempt ?? 0;
    const clash = this.containersOf(sandbox.id).find((c) => c.metadata.name === config.metadata.name && c.metadata.attempt === attempt);
    if (clash) {
      throw new KubeletError('KLT_ERR_CRI_FAILED', `failed to reserve container name ${JSON.stringify(`${config.metadata.name}_${attempt}`)} in sandbox ${sandbox.id}: name is reserved for ${clash.id}`);
    }
    const logDirectory = sandbox.log_directory || sandboxConfig?.log_directory || '';
    const record: ContainerRecord = {
      id: newId(),
      pod_sandbox_id: sandbox.id,
      metadata: { name: config.metadata.name, attempt },
      image: { image: image.repo_tags[0] ?? imageName, annotations: { ...config.image?.annotations } },
      image_ref: image.id,
      labels: { ...config.labels },
      annotations: { ...config.annotations },
      argv: containerArgv(config),
      env: containerEnv(config, sandbox),
      working_dir: config.working_dir || '/',
      ...containerUser(config),
      log_path: containerLogPath(logDirectory, config.log_path ?? ''),
      mounts: (config.mounts ?? []).map((m) => ({ ...m })),
      phase: 'created',
      created_at: this.options.nowNs().toString(),
      started_at: '0',
      finished_at: '0',
      exit_code: 0,
      reason: '',
      message: '',
    };
    this.containers.set(record.id, record);
    await this.containerStore.put(record);
    return record.id;
  }

  async startContainer(id: string): Promise<void> {
    const container = this.requireContainer(id);
    await this.locks.run(container.id, async () => {
      await this.refresh(container);
      if (container.phase !== 'created') {
        throw new KubeletError('KLT_ERR_CRI_FAILED', `container ${container.id} is in ${containerState(container)} state: only a created container can be started`);
      }
      const sandbox = this.sandboxes.get(container.pod_sandbox_id);
      if (!sandbox || sandbox.state !== 'SANDBOX_READY') {
        throw new KubeletError('KLT_ERR_CRI_FAILED', `sandbox ${container.pod_sandbox_id} is not ready: cannot start container ${container.id}`);
      }
      try {
        await requireDirectory(container.working_dir);
        const launched = await launchThroughShim(this.options.shim, this.shimDir(container.id), {
          command: container.argv,
          env: container.env,
          cwd: container.working_dir,
          // No log requested: the output goes nowhere, as with containerd.
          logPath: container.log_path || '/dev/null',
          maxLineBytes: this.options.maxLogLineBytes ?? DEFAULT_MAX_LOG_LINE_BYTES,
          ...(container.run_as_user !== undefined ? { uid: container.run_as_user } : {}),
          ...(container.run_as_group !== undefined ? { gid: container.run_as_group } : {}),
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
        container.finished_at = this.options.nowNs().toString();
        await this.containerStore.put(container);
        throw err instanceof KubeletError ? err : new KubeletError('KLT_ERR_CRI_FAILED', message, { cause: err });
      }
      await this.containerStore.put(container);
      this.options.logger.info({ containerId: container.id, pid: container.process?.pid }, 'Started container');
    });
  }

  /**
   * SIGTERM to the process group, SIGKILL after timeoutSeconds (0: at once). Unknown or exited: no-op.
   * The group, not just the main process, because there is no PID namespace whose init would take the
   * rest down: see the header of index.ts for how this differs from containerd.
   */
  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    const container = this.findContainer(id);
    if (!container) return;
    await this.locks.run(container.id, () => this.stopLocked(container, timeoutSeconds));
  }

  async removeContainer(id: string): Promise<void> {
    const container = this.findContainer(id);
    if (!container) return;
    await this.locks.run(container.id, async () => {
      if (!this.containers.has(container.id)) return; // removed while we waited for the lock
      await this.stopLocked(container, 0);
      this.containers.delete(container.id);
      this.exits.forget(container.id);
      await this.containerStore.delete(container.id);
      await rm(this.shimDir(container.id), { recursive: true, force: true });
      // The log file stays: the kubelet owns log cleanup (containerd does not delete logs either).
    });
  }

  async listContainers(filter: ContainerFilter | null | undefined): Promise<readonly Container[]> {
    await this.refreshAll();
    if (!filter) return this.allContainers.keep([...this.containers.values()].map(toContainer));
    // One pod's containers (a pod worker's status read): select by label before building answers.
    const selected = [...this.containers.values()].filter((c) => matchesLabelSelector(c.labels, filter.label_selector));
    const resolved = {
      ...filter,
      id: filter.id ? this.findContainer(filter.id)?.id ?? filter.id : '',
      pod_sandbox_id: filter.pod_sandbox_id ? this.findSandbox(filter.pod_sandbox_id)?.id ?? filter.pod_sandbox_id : '',
    };
    return filterContainers(selected.map(toContainer), resolved);
  }

  async containerStatus(id: string, verbose: boolean): Promise<ContainerStatusResponse> {
    const container = this.requireContainer(id);
    await this.refresh(container);
    const status = {
      ...toContainer(container),
      started_at: container.started_at,
      finished_at: container.finished_at,
      exit_code: container.exit_code,
      reason: container.reason,
      message: container.message,
      mounts: container.mounts,
      log_path: container.log_path,
    };
    const info: Record<string, string> = verbose
      ? { info: JSON.stringify({ pid: container.process?.pid ?? 0, shimPid: container.shim?.pid ?? 0, sandboxID: container.pod_sandbox_id, argv: container.argv }) }
      : {};
    return { status, info };
  }

  // ---------------------------------------------------------------- stats (container-stats.ts)

  async listContainerStats(filter: ContainerStatsFilter | null | undefined): Promise<ContainerStats[]> {
    const ids = new Set((await this.listContainers(filter)).map((c) => c.id));
    return measureContainers([...this.containers.values()].filter((c) => ids.has(c.id)), this.options.nowNs());
  }

  async containerStats(id: string): Promise<ContainerStats> {
    const container = this.requireContainer(id);
    await this.refresh(container);
    const [stats] = await measureContainers([container], this.options.nowNs());
    return stats!;
  }

  /** Ready sandboxes only, as containerd lists them. */
  async listPodSandboxStats(filter: PodSandboxStatsFilter | null | undefined): Promise<PodSandboxStats[]> {
    await this.refreshAll();
    const ids = new Set(this.listPodSandbox(filter).filter((s) => s.state === 'SANDBOX_READY').map((s) => s.id));
    const sandboxes = [...this.sandboxes.values()].filter((s) => ids.has(s.id));
    return measureSandboxes(sandboxes, (id) => this.containersOf(id), this.options.nowNs());
  }

  async podSandboxStats(id: string): Promise<PodSandboxStats> {
    const sandbox = this.requireSandbox(id);
    await this.refreshAll();
    const [stats] = await measureSandboxes([sandbox], (sid) => this.containersOf(sid), this.options.nowNs());
    return stats!;
  }

  async execSync(id: string, cmd: string[], timeoutSeconds: number): Promise<ExecSyncResponse> {
    const container = this.requireContainer(id);
    await this.refresh(container);
    if (container.phase !== 'running') {
      throw new KubeletError('KLT_ERR_CRI_FAILED', `container ${container.id} is in ${containerState(container)} state: cannot exec`);
    }
    return runExecSync({
      argv: cmd, env: container.env, cwd: container.working_dir, timeoutSeconds,
      ...(container.run_as_user !== undefined ? { uid: container.run_as_user } : {}),
      ...(container.run_as_group !== undefined ? { gid: container.run_as_group } : {}),
    });
  }

  /** Asks the shim to re-open the log file (after the kubelet rotated it) and waits until it has. */
  async reopenContainerLog(id: string): Promise<void> {
    const container = this.requireContainer(id);
    await this.refresh(container);
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

  /** No cgroups, so nothing can be applied; accepted so in-place resize does not fail. */
  updateContainerResources(id: string): void {
    this.requireContainer(id);
  }

  // ---------------------------------------------------------------- internals

  private async stopLocked(container: ContainerRecord, timeoutSeconds: number): Promise<void> {
    await this.refresh(container);
    if (container.phase !== 'running') return;
    if (timeoutSeconds > 0) {
      signalGroup(container.process, 'SIGTERM');
      if (await this.waitForExit(container, timeoutSeconds * 1000)) return;
    }
    signalGroup(container.process, 'SIGKILL');
    if (!(await this.waitForExit(container, KILL_WAIT_MS))) {
      throw new KubeletError('KLT_ERR_CRI_FAILED', `container ${container.id} did not exit after SIGKILL`);
    }
    this.options.logger.info({ containerId: container.id, exitCode: container.exit_code }, 'Stopped container');
  }

  private async waitForExit(container: ContainerRecord, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      await this.refresh(container);
      if (container.phase !== 'running') return true;
      if (Date.now() >= deadline) return false;
      await sleep(EXIT_POLL_MS);
    }
  }

  /** Checks, of the running containers, those that may have changed (see exit-watch.ts). */
  private async refreshAll(): Promise<void> {
    for (const container of this.containers.values()) {
      if (container.phase !== 'running') continue;
      const check = this.exits.needsCheck(container.id, () => this.shimDir(container.id));
      if (check === 'none') continue;
      if (check === 'liveness' && isRunningProcess(container)) this.exits.checked(container.id);
      else await this.refresh(container);
    }
  }

  /**
   * A record still CREATED although its shim wrote started.json: the runtime stopped (crashed) between
   * launching the container and saving the record. The container did start, so the record says so.
   */
  private async recoverInterruptedStart(container: ContainerRecord): Promise<void> {
    if (container.phase !== 'created') return;
    const started = readJsonFileSync<StartedRecord>(join(this.shimDir(container.id), STARTED_FILE));
    if (started.kind !== 'ok') return;
    const s = started.value;
    container.phase = 'running';
    container.process = { pid: s.pid, startTime: s.startTime ?? '' };
    container.shim = { pid: s.shimPid, startTime: s.shimStartTime ?? '' };
    container.started_at = s.startedAt;
    await this.containerStore.put(container);
    this.options.logger.warn({ containerId: container.id }, 'Recovered a container started just before the runtime stopped');
  }

  /** Moves a running container to exited when its shim says so, or when nothing of it is left. */
  private async refresh(container: ContainerRecord): Promise<void> {
    if (container.phase !== 'running') return;
    const exit = readJsonFileSync<ExitRecord>(join(this.shimDir(container.id), EXIT_FILE));
    if (exit.kind === 'ok') {
      container.exit_code = exit.value.exit_code;
      container.finished_at = exit.value.finished_at;
      container.reason = exit.value.exit_code === 0 ? 'Completed' : 'Error';
    } else if (!isRunningProcess(container)) {
      container.exit_code = UNKNOWN_EXIT_CODE;
      container.finished_at = this.options.nowNs().toString();
      container.reason = 'Error';
      container.message = 'container process and its shim are gone without an exit status';
    } else {
      this.exits.checked(container.id);
      return;
    }
    container.phase = 'exited';
    this.exits.forget(container.id);
    await this.containerStore.put(container);
  }

  private shimDir(containerId: string): string {
    return join(this.shimRoot, containerId);
  }

  private containersOf(sandboxId: string): ContainerRecord[] {
    return [...this.containers.values()].filter((c) => c.pod_sandbox_id === sandboxId);
  }

  private findSandbox(id: string): SandboxRecord | undefined {
    return findById(this.sandboxes, id);
  }

  private findContainer(id: string): ContainerRecord | undefined {
    return findById(this.containers, id);
  }

  private requireSandbox(id: string): SandboxRecord {
    const sandbox = this.findSandbox(id);
    if (!sandbox) throw new KubeletError('KLT_ERR_CRI_NOT_FOUND', `an error occurred when try to find sandbox ${JSON.stringify(id)}: not found`);
    return sandbox;
  }

  private requireContainer(id: string): ContainerRecord {
    const container = this.findContainer(id);
    if (!container) throw new KubeletError('KLT_ERR_CRI_NOT_FOUND', `an error occurred when try to find container ${JSON.stringify(id)}: not found`);
    return container;
  }
}

// ---------------------------------------------------------------- helpers

/** /proc/sys/kernel/random/boot_id: changes on every boot. Undefined where it cannot be read. */
function currentBootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

function newId(): string {
  return randomBytes(32).toString('hex'); // 64 hex digits, the shape of containerd's ids
}

/** An exact id, or a unique prefix of one (containerd's truncated-id lookup). */
function findById<T>(map: Map<string, T>, id: string): T | undefined {
  if (!id) return undefined;
  const exact = map.get(id);
  if (exact) return exact;
  const matches = [...map.keys()].filter((key) => key.startsWith(id));
  return matches.length === 1 ? map.get(matches[0]!) : undefined;
}

function sandboxName(sandbox: { metadata: { name: string; namespace: string; uid: string; attempt?: number } }): string {
  const m = sandbox.metadata;
  return `${m.name}_${m.namespace}_${m.uid}_${m.attempt ?? 0}`;
}

function containerArgv(config: ContainerConfig): string[] {
  const command = config.command ?? [];
  const args = config.args ?? [];
  return command.length > 0 ? [...command, ...args] : [...DEFAULT_ENTRYPOINT, ...args];
}

/**
 * The image's env (PATH), then HOSTNAME, then the config's envs, later ones winning, as containerd
 * builds it; then HOME when still unset, which runc fills in from the user's passwd entry. Nothing is
 * inherited from kubelet-ts's own environment.
 */
function containerEnv(config: ContainerConfig, sandbox: SandboxRecord): Record<string, string> {
  const env: Record<string, string> = { PATH: DEFAULT_CONTAINER_PATH, HOSTNAME: sandbox.hostname || hostname() };
  for (const { key, value } of config.envs ?? []) {
    env[key] = Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
  }
  env.HOME ??= homeOfCurrentUser();
  return env;
}

function homeOfCurrentUser(): string {
  try {
    return userInfo().homedir || '/';
  } catch {
    return '/'; // no passwd entry for our uid
  }
}

/**
 * run_as_user / run_as_group become the process's uid/gid (switching needs kubelet-ts to run as root;
 * without the privilege StartContainer fails with EPERM). run_as_username would need the image's
 * /etc/passwd, which does not exist here, so it is refused rather than silently run as someone else.
 */
function containerUser(config: ContainerConfig): { run_as_user?: number; run_as_group?: number } {
  const sc = config.linux?.security_context;
  if (sc?.run_as_username) {
    throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', `run_as_username ${JSON.stringify(sc.run_as_username)} is not supported by the embedded runtime (no image /etc/passwd); use a numeric run_as_user`);
  }
  const user = sc?.run_as_user ? Number(sc.run_as_user.value) : undefined;
  const group = sc?.run_as_group ? Number(sc.run_as_group.value) : undefined;
  return {
    ...(user !== undefined && Number.isInteger(user) && user >= 0 ? { run_as_user: user } : {}),
    ...(group !== undefined && Number.isInteger(group) && group >= 0 ? { run_as_group: group } : {}),
  };
}

function containerLogPath(logDirectory: string, logPath: string): string {
  if (!logPath) return '';
  if (isAbsolute(logPath)) return logPath;
  return logDirectory ? join(logDirectory, logPath) : '';
}

function containerState(container: ContainerRecord): ContainerState {
  switch (container.phase) {
    case 'created': return 'CONTAINER_CREATED';
    case 'running': return 'CONTAINER_RUNNING';
    case 'exited': return 'CONTAINER_EXITED';
  }
}

function toPodSandbox(sandbox: SandboxRecord): PodSandbox {
  return {
    id: sandbox.id,
    metadata: sandbox.metadata,
    state: sandbox.state,
    created_at: sandbox.created_at,
    labels: sandbox.labels,
    annotations: sandbox.annotations,
    runtime_handler: sandbox.runtime_handler,
  };
}

function toContainer(container: ContainerRecord): Container {
  return {
    id: container.id,
    pod_sandbox_id: container.pod_sandbox_id,
    metadata: container.metadata,
    image: container.image,
    image_ref: container.image_ref,
    image_id: container.image_ref,
    state: containerState(container),
    created_at: container.created_at,
    labels: container.labels,
    annotations: container.annotations,
  };
}

/** The container's process, or at least its shim (which will report the exit), still runs. */
function isRunningProcess(container: ContainerRecord): boolean {
  return isAlive(container.process) || isAlive(container.shim);
}

function isAlive(identity: ProcessIdentity | undefined): boolean {
  return identity !== undefined && identity.startTime !== '' && isSameProcessAlive(identity);
}

/** Signals the container's process group, but only if its leader is still the process we started. */
function signalGroup(identity: ProcessIdentity | undefined, signal: NodeJS.Signals): void {
  if (!isAlive(identity)) return;
  try {
    process.kill(-identity!.pid, signal);
  } catch {
    // ESRCH: it exited between the check and the signal.
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

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
