/**
 * The CRI v1 (runtime.v1) runtime and image services, as the kubelet uses them.
 *
 * The message types are generated from `proto/runtime/v1/api.proto` by proto-loader-gen-types
 * (`npm run generate`, into src/generated/) with the loader options the code loads the proto with
 * (cri-grpc/proto.ts): keepCase, longs as strings, enums as names, defaults, oneofs. So each type is
 * exactly what travels over gRPC; this file only names the ones kubelet-ts uses:
 * - what callers send (configs, filters) is the generated permissive type: every field optional;
 * - what the runtime answers is the generated `__Output` type: every field present (defaults filled
 *   in), int64 values as decimal strings (nanosecond timestamps exceed 2^53), enums as names, bytes
 *   as Buffers, and a message field `null` when the runtime left it out.
 */
import type { CgroupDriver__Output } from '../generated/runtime/v1/CgroupDriver.js';
import type { Container__Output } from '../generated/runtime/v1/Container.js';
import type { ContainerConfig as ContainerConfigMessage } from '../generated/runtime/v1/ContainerConfig.js';
import type { ContainerMetadata__Output } from '../generated/runtime/v1/ContainerMetadata.js';
import type { ContainerFilter as ContainerFilterMessage } from '../generated/runtime/v1/ContainerFilter.js';
import type { ContainerState__Output } from '../generated/runtime/v1/ContainerState.js';
import type { ContainerStats__Output } from '../generated/runtime/v1/ContainerStats.js';
import type { ContainerStatsFilter as ContainerStatsFilterMessage } from '../generated/runtime/v1/ContainerStatsFilter.js';
import type { ContainerStatus__Output } from '../generated/runtime/v1/ContainerStatus.js';
import type { ContainerStatusResponse__Output } from '../generated/runtime/v1/ContainerStatusResponse.js';
import type { AttachRequest as AttachRequestMessage } from '../generated/runtime/v1/AttachRequest.js';
import type { AuthConfig as AuthConfigMessage } from '../generated/runtime/v1/AuthConfig.js';
import type { ExecRequest as ExecRequestMessage } from '../generated/runtime/v1/ExecRequest.js';
import type { ExecSyncResponse__Output } from '../generated/runtime/v1/ExecSyncResponse.js';
import type { FilesystemUsage__Output } from '../generated/runtime/v1/FilesystemUsage.js';
import type { Image__Output } from '../generated/runtime/v1/Image.js';
import type { ImageFilter as ImageFilterMessage } from '../generated/runtime/v1/ImageFilter.js';
import type { ImageFsInfoResponse__Output } from '../generated/runtime/v1/ImageFsInfoResponse.js';
import type { ImageSpec as ImageSpecMessage } from '../generated/runtime/v1/ImageSpec.js';
import type { ImageStatusResponse__Output } from '../generated/runtime/v1/ImageStatusResponse.js';
import type { KeyValue as KeyValueMessage } from '../generated/runtime/v1/KeyValue.js';
import type { LinuxContainerResources as LinuxContainerResourcesMessage } from '../generated/runtime/v1/LinuxContainerResources.js';
import type { LinuxRuntimeConfiguration__Output } from '../generated/runtime/v1/LinuxRuntimeConfiguration.js';
import type { PodSandbox__Output } from '../generated/runtime/v1/PodSandbox.js';
import type { PodSandboxMetadata__Output } from '../generated/runtime/v1/PodSandboxMetadata.js';
import type { PodSandboxConfig as PodSandboxConfigMessage } from '../generated/runtime/v1/PodSandboxConfig.js';
import type { PodSandboxFilter as PodSandboxFilterMessage } from '../generated/runtime/v1/PodSandboxFilter.js';
import type { PodSandboxStats__Output } from '../generated/runtime/v1/PodSandboxStats.js';
import type { PodSandboxStatsFilter as PodSandboxStatsFilterMessage } from '../generated/runtime/v1/PodSandboxStatsFilter.js';
import type { PodSandboxStatus__Output } from '../generated/runtime/v1/PodSandboxStatus.js';
import type { PodSandboxStatusResponse__Output } from '../generated/runtime/v1/PodSandboxStatusResponse.js';
import type { StatusResponse__Output } from '../generated/runtime/v1/StatusResponse.js';
import type { UInt64Value__Output } from '../generated/runtime/v1/UInt64Value.js';
import type { VersionResponse__Output } from '../generated/runtime/v1/VersionResponse.js';

/** An int64 as it is answered: a decimal string. */
export type Int64 = string;
export type Labels = Record<string, string>;

// ------------------------------------------------------------------ what callers send

/** An image reference; the name is what kubelet-ts always gives. */
export type ImageSpec = ImageSpecMessage & { image: string };
/** kubelet-ts always says which pod a sandbox is for (domain/runtime/cri-config.ts builds it). */
export type PodSandboxConfig = Omit<PodSandboxConfigMessage, 'metadata'> & { metadata: PodSandboxMetadata__Output };
/** kubelet-ts always names the container and its image. */
export type ContainerConfig = Omit<ContainerConfigMessage, 'metadata' | 'image'> & { metadata: ContainerMetadata__Output; image: ImageSpec };
/** An env entry; `value` is `bytes` (since cri-api v0.36.2). */
export type KeyValue = KeyValueMessage;
export type LinuxContainerResources = LinuxContainerResourcesMessage;
export type PodSandboxFilter = PodSandboxFilterMessage;
export type ContainerFilter = ContainerFilterMessage;
export type ContainerStatsFilter = ContainerStatsFilterMessage;
export type PodSandboxStatsFilter = PodSandboxStatsFilterMessage;
export type ImageFilter = ImageFilterMessage;
/** Exec: the container and command always named; which streams, and whether a terminal, as asked. */
export type ExecRequest = ExecRequestMessage & { container_id: string; cmd: string[] };
/** Attach: the container always named; `tty` must be what the container was created with. */
export type AttachRequest = AttachRequestMessage & { container_id: string };

// ------------------------------------------------------------------ what the runtime answers

export type ContainerState = ContainerState__Output;
export type CgroupDriver = CgroupDriver__Output;
export type VersionResponse = VersionResponse__Output;
export type StatusResponse = StatusResponse__Output;
/**
 * Fields a runtime always sets on what it lists or reports (metadata, a container's image), declared
 * present: where a runtime leaves one out, the gRPC adapter reads it as proto3 reads an absent
 * message, its defaults (see cri-grpc/complete-answers.ts).
 */
export type Present<T, K extends keyof T> = Omit<T, K> & { [P in K]: NonNullable<T[P]> };
export type PodSandbox = Present<PodSandbox__Output, 'metadata'>;
export type PodSandboxStatus = Present<PodSandboxStatus__Output, 'metadata'>;
export type PodSandboxStatusResponse = Omit<PodSandboxStatusResponse__Output, 'status'> & { status: PodSandboxStatus | null };
export type Container = Present<Container__Output, 'metadata' | 'image'>;
export type ContainerStatus = Present<ContainerStatus__Output, 'metadata' | 'image'>;
export type ContainerStatusResponse = Omit<ContainerStatusResponse__Output, 'status'> & { status: ContainerStatus | null };
export type ExecSyncResponse = ExecSyncResponse__Output;
export type ContainerStats = ContainerStats__Output;
export type PodSandboxStats = PodSandboxStats__Output;
export type UInt64Value = UInt64Value__Output;
export type FilesystemUsage = FilesystemUsage__Output;
export type Image = Image__Output;
export type ImageStatusResponse = ImageStatusResponse__Output;
export type ImageFsInfoResponse = ImageFsInfoResponse__Output;
export type LinuxRuntimeConfiguration = LinuxRuntimeConfiguration__Output;

// ------------------------------------------------------------------ the services

/** What every call may be given: a deadline override (ms). Adapters apply their defaults otherwise. */
export interface CallOptions { timeoutMs?: number }

/** Registry credentials sent with PullImage: never logged, never journaled. */
export type AuthConfig = AuthConfigMessage;

export interface PullImageOptions extends CallOptions { auth?: AuthConfig }

/**
 * runtime.v1.RuntimeService, as used by kubelet-ts. Failures reject with KubeletError (KLT_ERR_CRI_*).
 * The methods marked optional are the rest of the surface the Go kubelet uses (resources, log
 * rotation, stats, runtime config): the gRPC adapter implements them all, fakes may leave them out,
 * and callers check for them.
 */
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

  updateContainerResources?(containerId: string, linux: LinuxContainerResources, opts?: CallOptions): Promise<void>;
  /** After log rotation. A runtime may refuse for a stopped container. */
  reopenContainerLog?(containerId: string, opts?: CallOptions): Promise<void>;
  containerStats?(containerId: string, opts?: CallOptions): Promise<ContainerStats | null>;
  podSandboxStats?(podSandboxId: string, opts?: CallOptions): Promise<PodSandboxStats | null>;
  updateRuntimeConfig?(podCidr: string, opts?: CallOptions): Promise<void>;
  /** The runtime's cgroup driver; rejects with KLT_ERR_CRI_UNIMPLEMENTED on runtimes older than CRI 1.28's RPC. */
  runtimeConfig?(opts?: CallOptions): Promise<LinuxRuntimeConfiguration | null>;

  /**
   * The streaming calls: each answers the URL of the runtime's streaming server where the session
   * is served (SPDY or WebSocket upgrade); the kubelet server proxies its client there. A runtime
   * without a streaming server rejects with KLT_ERR_CRI_UNIMPLEMENTED.
   */
  exec?(request: ExecRequest, opts?: CallOptions): Promise<string>;
  attach?(request: AttachRequest, opts?: CallOptions): Promise<string>;
  /** `ports` may be empty: the client names them on its streams (SPDY). */
  portForward?(podSandboxId: string, ports: number[], opts?: CallOptions): Promise<string>;
}

/** runtime.v1.ImageService, as used by kubelet-ts. */
export interface CriImageService {
  listImages(filter?: ImageFilter, opts?: CallOptions): Promise<Image[]>;
  imageStatus(image: ImageSpec, verbose?: boolean, opts?: CallOptions): Promise<ImageStatusResponse>;
  /** Returns the image reference (id or digest) the runtime resolved. */
  pullImage(image: ImageSpec, sandboxConfig?: PodSandboxConfig, opts?: PullImageOptions): Promise<string>;
  removeImage(image: ImageSpec, opts?: CallOptions): Promise<void>;
  imageFsInfo(opts?: CallOptions): Promise<ImageFsInfoResponse>;
}

/** Both services plus the connection's lifetime. */
export interface CriClient {
  readonly runtime: CriRuntimeService;
  readonly images: CriImageService;
  close(): void;
}
