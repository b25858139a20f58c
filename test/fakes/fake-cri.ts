/**
 * An in-memory CRI runtime and image service, pinned to the port with `implements`.
 *
 * It behaves like containerd where the kubelet can tell: create → CONTAINER_CREATED, start →
 * CONTAINER_RUNNING, stop → CONTAINER_EXITED (143 after a graceful stop, 137 when killed at once),
 * StopPodSandbox kills whatever still runs in the sandbox without grace, RemovePodSandbox removes
 * the sandbox's containers, CreateContainer needs a ready sandbox, PullImage always "contacts the
 * registry" (it is recorded even for a present image). Every call is recorded in `calls` as
 * "<method> <subject>" (container, sandbox or image name); a test may inject one failure per method
 * (`failNext`) and make a container exit (`exitContainer`).
 */
import { KubeletError } from '../../src/domain/errors.js';
import type {
  Container, ContainerConfig, ContainerFilter, ContainerState, ContainerStats, ContainerStatsFilter, ContainerStatus, ContainerStatusResponse, CriClient,
  CriImageService, CriRuntimeService, ExecSyncResponse, Image, ImageFsInfoResponse, ImageSpec, ImageStatusResponse, LinuxContainerResources,
  PodSandbox, PodSandboxConfig, PodSandboxFilter, PodSandboxStats, PodSandboxStatusResponse, StatusResponse, VersionResponse,
} from '../../src/ports/cri.js';

interface SandboxRecord {
  id: string;
  config: PodSandboxConfig;
  state: 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
  createdAt: bigint;
  ip: string;
  /** The runtime_handler RunPodSandbox was asked for. */
  runtimeHandler: string;
}

interface ContainerRecord {
  id: string;
  sandboxId: string;
  config: ContainerConfig;
  state: ContainerState;
  createdAt: bigint;
  startedAt: bigint;
  finishedAt: bigint;
  exitCode: number;
  reason: string;
  imageRef: string;
  /** The grace period StopContainer was given, for tests. */
  stopTimeoutSeconds?: number;
}

type Method = keyof CriRuntimeService | keyof CriImageService;

function matchesLabels(labels: Record<string, string>, selector: Record<string, string> | undefined): boolean {
  return Object.entries(selector ?? {}).every(([k, v]) => labels[k] === v);
}

export class FakeCri implements CriClient {
  readonly calls: string[] = [];
  /** The exit code every ExecSync answers with (a hook or probe command "fails" when non-zero). */
  execExitCode = 0;
  /** The runtime handlers Status reports (none, as containerd before 2.0). */
  runtimeHandlers: StatusResponse['runtime_handlers'] = [];
  readonly sandboxes = new Map<string, SandboxRecord>();
  readonly containers = new Map<string, ContainerRecord>();
  /** Images on the node, by the reference they were added or pulled under. */
  readonly imageStore = new Map<string, Image>();
  /** Every UpdateContainerResources request, in order, by container id. */
  readonly resourceUpdates: { id: string; linux: LinuxContainerResources }[] = [];
  /** What ListContainerStats reports per container id; a container without an entry has nothing measured. */
  readonly usage = new Map<string, { cpuNs: bigint; workingSetBytes: bigint; nanoCores?: bigint }>();
  readonly runtime: CriRuntimeService;
  readonly images: CriImageService;
  closed = false;

  private readonly failures = new Map<string, Error>();
  private nextId = 1;
  /** The last timestamp handed out, in nanoseconds (from the clock, or a plausible epoch). */
  private tick: bigint;

  /**
   * `clock` (milliseconds) stamps created/started/finished times, so a test's simulated clock and
   * the runtime's timestamps agree (crash-loop back-off is measured from finished_at).
   */
  constructor(private readonly opts: { clock?: { now(): number } } = {}) {
    this.tick = opts.clock ? 0n : 1_700_000_000_000_000_000n;
    this.runtime = this.makeRuntimeService();
    this.images = this.makeImageService();
  }

  close(): void {
    this.closed = true;
  }

  /** The next call of `method` rejects with `error` (once). */
  failNext(method: Method, error: Error = new KubeletError('KLT_ERR_CRI_FAILED', `injected ${method} failure`)): void {
    this.failures.set(method, error);
  }

  /** Puts an image on the node; `extra` sets fields such as `uid`/`username` (the image's user). */
  addImage(ref: string, extra: Partial<Image> = {}): Image {
    const id = `sha256:${ref.replace(/[^a-z0-9]/g, '').padEnd(12, '0').slice(0, 12)}`;
    const image: Image = { id, repo_tags: [ref], repo_digests: [], size: '1000', uid: null, username: '', spec: null, pinned: false, ...extra };
    this.imageStore.set(ref, image);
    return image;
  }

  /** The container's process exits by itself with `code`. */
  exitContainer(id: string, code: number, reason = code === 0 ? 'Completed' : 'Error'): void {
    const c = this.mustContainer(id);
    c.state = 'CONTAINER_EXITED';
    c.exitCode = code;
    c.reason = reason;
    c.finishedAt = this.now();
  }

  /** The sandbox dies (its pause process exits, its network goes away). */
  failSandbox(id: string): void {
    const s = this.sandboxes.get(id);
    if (s) s.state = 'SANDBOX_NOTREADY';
  }

  /** Ids of containers with this name, oldest first. */
  containerIdsByName(name: string): string[] {
    return [...this.containers.values()].filter((c) => c.config.metadata.name === name).map((c) => c.id);
  }

  /** The newest container with this name. */
  latestContainer(name: string): ContainerRecord | undefined {
    const ids = this.containerIdsByName(name);
    const last = ids[ids.length - 1];
    return last === undefined ? undefined : this.containers.get(last);
  }

  /** Strictly increasing, so "newest first" is well defined even within one clock millisecond. */
  private now(): bigint {
    const fromClock = this.opts.clock ? BigInt(Math.floor(this.opts.clock.now())) * 1_000_000n : 0n;
    this.tick = fromClock > this.tick ? fromClock : this.tick + 1000n;
    return this.tick;
  }

  private record(method: Method, subject = ''): void {
    this.calls.push(subject === '' ? method : `${method} ${subject}`);
    const failure = this.failures.get(method);
    if (failure) {
      this.failures.delete(method);
      throw failure;
    }
  }

  private notFound(what: string): KubeletError {
    return new KubeletError('KLT_ERR_CRI_NOT_FOUND', `${what} not found`);
  }

  private mustContainer(id: string): ContainerRecord {
    const c = this.containers.get(id);
    if (!c) throw this.notFound(`container "${id}"`);
    return c;
  }

  private mustSandbox(id: string): SandboxRecord {
    const s = this.sandboxes.get(id);
    if (!s) throw this.notFound(`sandbox "${id}"`);
    return s;
  }

  private containerName(id: string): string {
    return this.containers.get(id)?.config.metadata.name ?? id;
  }

  private findImage(spec: ImageSpec): Image | undefined {
    return this.imageStore.get(spec.image) ?? [...this.imageStore.values()].find((i) => i.id === spec.image || i.repo_tags.includes(spec.image));
  }

  private containerView(c: ContainerRecord): Container {
    return {
      id: c.id,
      pod_sandbox_id: c.sandboxId,
      metadata: { ...c.config.metadata },
      image: { image: c.config.image.image, annotations: {}, user_specified_image: '', runtime_handler: '' },
      image_ref: c.imageRef,
      image_id: c.imageRef,
      state: c.state,
      created_at: String(c.createdAt),
      labels: { ...c.config.labels },
      annotations: { ...c.config.annotations },
    };
  }

  private containerStatusView(c: ContainerRecord): ContainerStatus {
    const sandbox = this.sandboxes.get(c.sandboxId);
    return {
      ...this.containerView(c),
      started_at: String(c.startedAt),
      finished_at: String(c.finishedAt),
      exit_code: c.exitCode,
      reason: c.reason,
      message: '',
      mounts: [],
      resources: null,
      log_path: `${sandbox?.config.log_directory ?? ''}/${c.config.log_path ?? ''}`,
    };
  }

  private sandboxView(s: SandboxRecord): PodSandbox {
    return {
      id: s.id,
      metadata: { ...s.config.metadata },
      state: s.state,
      created_at: String(s.createdAt),
      labels: { ...s.config.labels },
      annotations: { ...s.config.annotations },
      runtime_handler: '',
    };
  }

  private stop(c: ContainerRecord, exitCode: number): void {
    if (c.state !== 'CONTAINER_RUNNING') return;
    c.state = 'CONTAINER_EXITED';
    c.exitCode = exitCode;
    c.reason = 'Error';
    c.finishedAt = this.now();
  }

  /** A container's stats: from `usage` when a test set it, else nothing measured (cpu and memory null). */
  private statsView(c: ContainerRecord): ContainerStats {
    const u = this.usage.get(c.id);
    const timestamp = String(this.now());
    const value = (v: bigint) => ({ value: v.toString() });
    return {
      attributes: { id: c.id, metadata: c.config.metadata, labels: c.config.labels ?? {}, annotations: c.config.annotations ?? {} },
      cpu: u ? { timestamp, usage_core_nano_seconds: value(u.cpuNs), usage_nano_cores: u.nanoCores === undefined ? null : value(u.nanoCores) } : null,
      memory: u
        ? { timestamp, working_set_bytes: value(u.workingSetBytes), available_bytes: null, usage_bytes: value(u.workingSetBytes), rss_bytes: null, page_faults: null, major_page_faults: null }
        : null,
      writable_layer: null,
    };
  }

  private makeRuntimeService(): CriRuntimeService {
    return {
      version: async (): Promise<VersionResponse> => {
        this.record('version');
        return { version: '0.1.0', runtime_name: 'fake', runtime_version: '0.0.0', runtime_api_version: 'v1' };
      },
      status: async (): Promise<StatusResponse> => {
        this.record('status');
        return {
          status: { conditions: [{ type: 'RuntimeReady', status: true, reason: '', message: '' }, { type: 'NetworkReady', status: true, reason: '', message: '' }] },
          info: {},
          runtime_handlers: this.runtimeHandlers,
        };
      },
      runPodSandbox: async (config: PodSandboxConfig, runtimeHandler = ''): Promise<string> => {
        this.record('runPodSandbox', config.metadata.name);
        const id = `sandbox-${this.nextId++}`;
        const hostNetwork = config.linux?.security_context?.namespace_options?.network === 'NODE';
        this.sandboxes.set(id, { id, config, state: 'SANDBOX_READY', createdAt: this.now(), ip: hostNetwork ? '' : `10.88.0.${this.nextId}`, runtimeHandler });
        return id;
      },
      stopPodSandbox: async (id: string): Promise<void> => {
        this.record('stopPodSandbox', this.sandboxes.get(id)?.config.metadata.name ?? id);
        const s = this.sandboxes.get(id);
        if (!s) return; // idempotent, as the CRI requires
        // containerd kills what still runs, without grace.
        for (const c of this.containers.values()) if (c.sandboxId === id) this.stop(c, 137);
        s.state = 'SANDBOX_NOTREADY';
      },
      removePodSandbox: async (id: string): Promise<void> => {
        this.record('removePodSandbox', this.sandboxes.get(id)?.config.metadata.name ?? id);
        for (const [cid, c] of this.containers) if (c.sandboxId === id) this.containers.delete(cid);
        this.sandboxes.delete(id);
      },
      podSandboxStatus: async (id: string): Promise<PodSandboxStatusResponse> => {
        this.record('podSandboxStatus', this.sandboxes.get(id)?.config.metadata.name ?? id);
        const s = this.mustSandbox(id);
        return { status: { ...this.sandboxView(s), network: { ip: s.ip, additional_ips: [] }, linux: null }, info: {} };
      },
      listPodSandbox: async (filter?: PodSandboxFilter): Promise<PodSandbox[]> => {
        this.record('listPodSandbox');
        return [...this.sandboxes.values()]
          .filter((s) => (!filter?.id || s.id === filter.id) && (!filter?.state || s.state === filter.state.state) && matchesLabels(s.config.labels ?? {}, filter?.label_selector))
          .map((s) => this.sandboxView(s));
      },
      createContainer: async (sandboxId: string, config: ContainerConfig): Promise<string> => {
        this.record('createContainer', config.metadata.name);
        const sandbox = this.mustSandbox(sandboxId);
        if (sandbox.state !== 'SANDBOX_READY') throw new KubeletError('KLT_ERR_CRI_FAILED', `sandbox "${sandboxId}" is not running`);
        const image = this.findImage(config.image);
        if (!image) throw this.notFound(`image "${config.image.image}"`);
        const id = `container-${this.nextId++}`;
        this.containers.set(id, {
          id, sandboxId, config, state: 'CONTAINER_CREATED', createdAt: this.now(), startedAt: 0n, finishedAt: 0n, exitCode: 0, reason: '', imageRef: image.id,
        });
        return id;
      },
      startContainer: async (id: string): Promise<void> => {
        this.record('startContainer', this.containerName(id));
        const c = this.mustContainer(id);
        if (c.state !== 'CONTAINER_CREATED') throw new KubeletError('KLT_ERR_CRI_FAILED', `container "${id}" is in ${c.state}, not CREATED`);
        c.state = 'CONTAINER_RUNNING';
        c.startedAt = this.now();
      },
      stopContainer: async (id: string, timeoutSeconds: number): Promise<void> => {
        this.record('stopContainer', this.containerName(id));
        const c = this.containers.get(id);
        if (!c) return; // stopping a removed container succeeds, as with containerd
        c.stopTimeoutSeconds = timeoutSeconds;
        this.stop(c, timeoutSeconds > 0 ? 143 : 137);
      },
      removeContainer: async (id: string): Promise<void> => {
        this.record('removeContainer', this.containerName(id));
        this.containers.delete(id);
      },
      listContainers: async (filter?: ContainerFilter): Promise<Container[]> => {
        this.record('listContainers');
        return [...this.containers.values()]
          .filter((c) => (!filter?.id || c.id === filter.id)
            && (!filter?.pod_sandbox_id || c.sandboxId === filter.pod_sandbox_id)
            && (!filter?.state || c.state === filter.state.state)
            && matchesLabels(c.config.labels ?? {}, filter?.label_selector))
          .map((c) => this.containerView(c));
      },
      containerStatus: async (id: string): Promise<ContainerStatusResponse> => {
        this.record('containerStatus', this.containerName(id));
        return { status: this.containerStatusView(this.mustContainer(id)), info: {} };
      },
      execSync: async (id: string, cmd: string[]): Promise<ExecSyncResponse> => {
        this.record('execSync', this.containerName(id));
        const c = this.mustContainer(id);
        if (c.state !== 'CONTAINER_RUNNING') throw new KubeletError('KLT_ERR_CRI_FAILED', `container "${id}" is not running`);
        return { stdout: Buffer.from(cmd.join(' ')), stderr: Buffer.alloc(0), exit_code: this.execExitCode };
      },
      updateContainerResources: async (id: string, linux: LinuxContainerResources): Promise<void> => {
        this.record('updateContainerResources', this.containerName(id));
        this.mustContainer(id);
        this.resourceUpdates.push({ id, linux });
      },
      listContainerStats: async (filter?: ContainerStatsFilter): Promise<ContainerStats[]> => {
        this.record('listContainerStats');
        return [...this.containers.values()]
          .filter((c) => (!filter?.id || c.id === filter.id) && (!filter?.pod_sandbox_id || c.sandboxId === filter.pod_sandbox_id) && matchesLabels(c.config.labels ?? {}, filter?.label_selector))
          .map((c) => this.statsView(c));
      },
      listPodSandboxStats: async (): Promise<PodSandboxStats[]> => {
        this.record('listPodSandboxStats');
        return [...this.sandboxes.values()].filter((s) => s.state === 'SANDBOX_READY').map((s) => ({
          attributes: { id: s.id, metadata: s.config.metadata, labels: s.config.labels ?? {}, annotations: s.config.annotations ?? {} },
          linux: { cpu: null, memory: null, network: null, process: null, containers: [...this.containers.values()].filter((c) => c.sandboxId === s.id).map((c) => this.statsView(c)) },
        }));
      },
    };
  }

  private makeImageService(): CriImageService {
    return {
      listImages: async (): Promise<Image[]> => {
        this.record('listImages');
        return [...new Set(this.imageStore.values())];
      },
      imageStatus: async (spec: ImageSpec): Promise<ImageStatusResponse> => {
        this.record('imageStatus', spec.image);
        return { image: this.findImage(spec) ?? null, info: {} };
      },
      pullImage: async (spec: ImageSpec): Promise<string> => {
        this.record('pullImage', spec.image);
        return (this.findImage(spec) ?? this.addImage(spec.image)).id;
      },
      removeImage: async (spec: ImageSpec): Promise<void> => {
        this.record('removeImage', spec.image);
        const image = this.findImage(spec);
        if (image) for (const [ref, i] of this.imageStore) if (i === image) this.imageStore.delete(ref);
      },
      imageFsInfo: async (): Promise<ImageFsInfoResponse> => {
        this.record('imageFsInfo');
        const fs = { timestamp: String(this.now()), fs_id: { mountpoint: '/var/lib/fake' }, used_bytes: { value: '1000' }, inodes_used: { value: '10' } };
        return { image_filesystems: [fs], container_filesystems: [fs] };
      },
    };
  }
}
