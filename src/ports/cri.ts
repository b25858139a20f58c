/**
 * The CRI v1 (runtime.v1) runtime and image services, as the kubelet uses them.
 *
 * Field names are the proto's own (snake_case), so these types are exactly what travels over gRPC
 * with proto-loader's `keepCase`: no renaming layer to keep in sync. Conventions on the wire:
 * - int64 values (timestamps in nanoseconds, sizes, exit codes are int32) are decimal strings, so
 *   nanosecond timestamps (> 2^53) keep every digit;
 * - enums are their names (`'CONTAINER_RUNNING'`);
 * - `bytes` fields (KeyValue.value since cri-api v0.36.2, ExecSync output) are Buffers.
 * Only what kubelet-ts uses is declared; `proto/` holds the matching messages.
 */

export type Int64 = string;

export interface KeyValue { key: string; value: Buffer }
export type Labels = Record<string, string>;

export type PodSandboxState = 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
export type ContainerState = 'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';
export type Protocol = 'TCP' | 'UDP' | 'SCTP';
/** POD shares among the pod's containers, CONTAINER gives each its own, NODE is the host's. */
export type NamespaceMode = 'POD' | 'CONTAINER' | 'NODE' | 'TARGET';

export interface VersionResponse { version: string; runtime_name: string; runtime_version: string; runtime_api_version: string }

export interface RuntimeCondition { type: string; status: boolean; reason: string; message: string }
export interface RuntimeStatus { conditions: RuntimeCondition[] }
export interface StatusResponse { status: RuntimeStatus | null; info: Record<string, string> }

export interface PodSandboxMetadata { name: string; uid: string; namespace: string; attempt: number }
export interface ContainerMetadata { name: string; attempt: number }

export interface PortMapping { protocol: Protocol; container_port: number; host_port: number; host_ip: string }
export interface DNSConfig { servers: string[]; searches: string[]; options: string[] }
export interface NamespaceOption { network: NamespaceMode; pid: NamespaceMode; ipc: NamespaceMode }
export interface Int64Value { value: Int64 }

export interface LinuxSandboxSecurityContext {
  namespace_options?: Partial<NamespaceOption>;
  run_as_user?: Int64Value | null;
  run_as_group?: Int64Value | null;
  readonly_rootfs?: boolean;
  supplemental_groups?: Int64[];
  privileged?: boolean;
}

export interface LinuxContainerResources {
  cpu_period?: Int64;
  cpu_quota?: Int64;
  cpu_shares?: Int64;
  memory_limit_in_bytes?: Int64;
  oom_score_adj?: Int64;
  cpuset_cpus?: string;
  cpuset_mems?: string;
}

export interface LinuxPodSandboxConfig {
  cgroup_parent?: string;
  security_context?: LinuxSandboxSecurityContext;
  sysctls?: Record<string, string>;
  resources?: LinuxContainerResources;
}

export interface PodSandboxConfig {
  metadata: PodSandboxMetadata;
  hostname?: string;
  log_directory?: string;
  dns_config?: DNSConfig | null;
  port_mappings?: PortMapping[];
  labels?: Labels;
  annotations?: Labels;
  linux?: LinuxPodSandboxConfig;
}

export interface PodSandboxNetworkStatus { ip: string; additional_ips?: { ip: string }[] }
export interface PodSandboxStatus {
  id: string;
  metadata: PodSandboxMetadata;
  state: PodSandboxState;
  created_at: Int64;
  network: PodSandboxNetworkStatus | null;
  labels: Labels;
  annotations: Labels;
  runtime_handler?: string;
}
export interface PodSandboxStatusResponse { status: PodSandboxStatus | null; info: Record<string, string> }

export interface PodSandbox {
  id: string;
  metadata: PodSandboxMetadata;
  state: PodSandboxState;
  created_at: Int64;
  labels: Labels;
  annotations: Labels;
  runtime_handler?: string;
}

export interface PodSandboxFilter {
  id?: string;
  state?: { state: PodSandboxState } | null;
  label_selector?: Labels;
}

export interface ImageSpec { image: string; annotations?: Labels; user_specified_image?: string; runtime_handler?: string }

export interface Mount { container_path: string; host_path: string; readonly?: boolean; selinux_relabel?: boolean }

export interface Capability { add_capabilities?: string[]; drop_capabilities?: string[] }
export interface LinuxContainerSecurityContext {
  capabilities?: Capability | null;
  privileged?: boolean;
  namespace_options?: Partial<NamespaceOption>;
  run_as_user?: Int64Value | null;
  run_as_group?: Int64Value | null;
  run_as_username?: string;
  readonly_rootfs?: boolean;
  supplemental_groups?: Int64[];
  no_new_privs?: boolean;
}
export interface LinuxContainerConfig { resources?: LinuxContainerResources; security_context?: LinuxContainerSecurityContext }

export interface ContainerConfig {
  metadata: ContainerMetadata;
  image: ImageSpec;
  command?: string[];
  args?: string[];
  working_dir?: string;
  envs?: KeyValue[];
  mounts?: Mount[];
  labels?: Labels;
  annotations?: Labels;
  /** Relative to the sandbox's log_directory. */
  log_path?: string;
  stdin?: boolean;
  stdin_once?: boolean;
  tty?: boolean;
  linux?: LinuxContainerConfig;
}

export interface Container {
  id: string;
  pod_sandbox_id: string;
  metadata: ContainerMetadata;
  image: ImageSpec;
  image_ref: string;
  state: ContainerState;
  created_at: Int64;
  labels: Labels;
  annotations: Labels;
}

export interface ContainerFilter {
  id?: string;
  state?: { state: ContainerState } | null;
  pod_sandbox_id?: string;
  label_selector?: Labels;
}

export interface ContainerStatus {
  id: string;
  metadata: ContainerMetadata;
  state: ContainerState;
  created_at: Int64;
  started_at: Int64;
  finished_at: Int64;
  exit_code: number;
  image: ImageSpec;
  image_ref: string;
  reason: string;
  message: string;
  labels: Labels;
  annotations: Labels;
  mounts: Mount[];
  log_path: string;
}
export interface ContainerStatusResponse { status: ContainerStatus | null; info: Record<string, string> }

export interface ExecSyncResponse { stdout: Buffer; stderr: Buffer; exit_code: number }

export interface Image {
  id: string;
  repo_tags: string[];
  repo_digests: string[];
  size: Int64;
  uid?: Int64Value | null;
  username?: string;
  spec?: ImageSpec | null;
  pinned?: boolean;
}
export interface ImageStatusResponse { image: Image | null; info: Record<string, string> }
export interface FilesystemUsage {
  timestamp: Int64;
  fs_id: { mountpoint: string } | null;
  used_bytes: { value: Int64 } | null;
  inodes_used: { value: Int64 } | null;
}
export interface ImageFsInfoResponse { image_filesystems: FilesystemUsage[]; container_filesystems: FilesystemUsage[] }

/** What every call may be given: a deadline override (ms). Adapters apply their defaults otherwise. */
export interface CallOptions { timeoutMs?: number }

/** runtime.v1.RuntimeService, as used by kubelet-ts. Failures reject with KubeletError (KLT_ERR_CRI_*). */
export interface CriRuntimeService {
  version(opts?: CallOptions): Promise<VersionResponse>;
  status(verbose?: boolean, opts?: CallOptions): Promise<StatusResponse>;

  runPodSandbox(config: PodSandboxConfig, runtimeHandler?: string, opts?: CallOptions): Promise<string>;
  stopPodSandbox(podSandboxId: string, opts?: CallOptions): Promise<void>;
  removePodSandbox(podSandboxId: string, opts?: CallOptions): Promise<void>;
  podSandboxStatus(podSandboxId: string, verbose?: boolean, opts?: CallOptions): Promise<PodSandboxStatusResponse>;
  listPodSandbox(filter?: PodSandboxFilter, opts?: CallOptions): Promise<PodSandbox[]>;

  createContainer(podSandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig, opts?: CallOptions): Promise<string>;
  startContainer(containerId: string, opts?: CallOptions): Promise<void>;
  /** timeoutSeconds: grace before SIGKILL (0 = kill at once). The call deadline is extended to cover it. */
  stopContainer(containerId: string, timeoutSeconds: number, opts?: CallOptions): Promise<void>;
  removeContainer(containerId: string, opts?: CallOptions): Promise<void>;
  listContainers(filter?: ContainerFilter, opts?: CallOptions): Promise<Container[]>;
  containerStatus(containerId: string, verbose?: boolean, opts?: CallOptions): Promise<ContainerStatusResponse>;
  execSync(containerId: string, cmd: string[], timeoutSeconds: number, opts?: CallOptions): Promise<ExecSyncResponse>;

  /**
   * /stats/summary's source: one entry per container the filter selects. A runtime may leave `cpu`,
   * `memory` or `writable_layer` null (nothing measured), and `usage_nano_cores` null (the caller
   * then computes the rate from two samples, as the Go kubelet's CRI stats provider does).
   */
  listContainerStats(filter?: ContainerStatsFilter, opts?: CallOptions): Promise<ContainerStats[]>;
  /** Pod-level (sandbox) stats, with each sandbox's containers' stats inside `linux.containers`. */
  listPodSandboxStats(filter?: PodSandboxStatsFilter, opts?: CallOptions): Promise<PodSandboxStats[]>;
}

/** runtime.v1.ImageService, as used by kubelet-ts. */
export interface CriImageService {
  listImages(filter?: { image?: ImageSpec | null }, opts?: CallOptions): Promise<Image[]>;
  imageStatus(image: ImageSpec, verbose?: boolean, opts?: CallOptions): Promise<ImageStatusResponse>;
  /** Returns the image reference (id or digest) the runtime resolved. */
  pullImage(image: ImageSpec, sandboxConfig?: PodSandboxConfig, opts?: CallOptions): Promise<string>;
  removeImage(image: ImageSpec, opts?: CallOptions): Promise<void>;
  imageFsInfo(opts?: CallOptions): Promise<ImageFsInfoResponse>;
}

/** Both services plus the connection's lifetime. */
export interface CriClient {
  readonly runtime: CriRuntimeService;
  readonly images: CriImageService;
  close(): void;
}

// ---------------------------------------------------------------------------------------------
// Additions for the rest of the CRI surface the Go kubelet uses (resources, log rotation, stats,
// runtime config). Declared by interface merging and optional, so fakes written against the
// interfaces above keep compiling; the gRPC adapter implements all of them.

export interface LinuxContainerResources {
  /** cgroup v2 keys, e.g. "memory.max". */
  unified?: Record<string, string>;
  memory_swap_limit_in_bytes?: Int64;
}

export interface Container {
  /** The image's unique id on the node (cri-api >= 1.36 keeps it equal to Image.id). */
  image_id?: string;
}
export interface ContainerStatus {
  image_id?: string;
}

export interface UInt64Value { value: Int64 }
export interface CpuUsage { timestamp: Int64; usage_core_nano_seconds: UInt64Value | null; usage_nano_cores: UInt64Value | null }
export interface MemoryUsage {
  timestamp: Int64;
  working_set_bytes: UInt64Value | null;
  available_bytes: UInt64Value | null;
  usage_bytes: UInt64Value | null;
  rss_bytes: UInt64Value | null;
  page_faults: UInt64Value | null;
  major_page_faults: UInt64Value | null;
}
export interface ContainerAttributes { id: string; metadata: ContainerMetadata | null; labels: Labels; annotations: Labels }
export interface ContainerStats {
  attributes: ContainerAttributes | null;
  cpu: CpuUsage | null;
  memory: MemoryUsage | null;
  writable_layer: FilesystemUsage | null;
}
export interface ContainerStatsFilter { id?: string; pod_sandbox_id?: string; label_selector?: Labels }

export interface NetworkInterfaceUsage {
  name: string;
  rx_bytes: UInt64Value | null;
  rx_errors: UInt64Value | null;
  tx_bytes: UInt64Value | null;
  tx_errors: UInt64Value | null;
}
export interface PodSandboxStats {
  attributes: { id: string; metadata: PodSandboxMetadata | null; labels: Labels; annotations: Labels } | null;
  linux: {
    cpu: CpuUsage | null;
    memory: MemoryUsage | null;
    network: { timestamp: Int64; default_interface: NetworkInterfaceUsage | null; interfaces: NetworkInterfaceUsage[] } | null;
    process: { timestamp: Int64; process_count: UInt64Value | null } | null;
    containers: ContainerStats[];
  } | null;
}
export interface PodSandboxStatsFilter { id?: string; label_selector?: Labels }

export type CgroupDriver = 'SYSTEMD' | 'CGROUPFS';

export interface CriRuntimeService {
  updateContainerResources?(containerId: string, linux: LinuxContainerResources, opts?: CallOptions): Promise<void>;
  /** After log rotation. A runtime may refuse for a stopped container. */
  reopenContainerLog?(containerId: string, opts?: CallOptions): Promise<void>;
  containerStats?(containerId: string, opts?: CallOptions): Promise<ContainerStats | null>;
  podSandboxStats?(podSandboxId: string, opts?: CallOptions): Promise<PodSandboxStats | null>;
  updateRuntimeConfig?(podCidr: string, opts?: CallOptions): Promise<void>;
  /** The runtime's cgroup driver; rejects with KLT_ERR_CRI_UNIMPLEMENTED on runtimes older than CRI 1.28's RPC. */
  runtimeConfig?(opts?: CallOptions): Promise<{ cgroup_driver: CgroupDriver } | null>;
}
