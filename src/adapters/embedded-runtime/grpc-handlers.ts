/**
 * The embedded runtime's RPCs: one operation per implemented RPC (request in, answer out), each a thin
 * call into the runtime's operations (sandboxes.ts, containers.ts, exec.ts, stream-requests.ts,
 * stats.ts) / EmbeddedImageService. Two faces serve the same table: grpc-js handlers on the socket
 * (`grpcHandlers`), and the kubelet's own in-process channel (in-process-channel.ts); both settle a
 * call through `settle`, so they answer and log alike.
 * RPCs left out here get UNIMPLEMENTED, the answer containerd 1.6 gives to RPCs it lacks. RuntimeConfig
 * answers CGROUPFS: the runtime makes its cgroups with mkdir under the sandbox's cgroup_parent.
 * KubeletErrors become gRPC statuses through one table; anything else is UNKNOWN (gRPC 2), which is what
 * containerd answers for its plain errors.
 */
import { status as GrpcStatus, type handleUnaryCall, type UntypedHandleCall } from '@grpc/grpc-js';
import { KubeletError, type KubeletErrorCode } from '../../domain/errors.js';
import type { ImageServiceHandlers } from '../../generated/runtime/v1/ImageService.js';
import type { RuntimeServiceHandlers } from '../../generated/runtime/v1/RuntimeService.js';
import type { Logger } from '../../log.js';
import { containerStatus, createContainer, listContainers, removeContainer, reopenContainerLog, startContainer, stopContainer, updateContainerResources } from './containers/containers.js';
import { execSync } from './streaming/exec.js';
import type { EmbeddedImageService } from './images/image-service.js';
import type { RuntimeState } from './state/runtime-state.js';
import { status, version } from './runtime-service.js';
import { attachUrl, execUrl, portForwardUrl } from './streaming/stream-requests.js';
import type { StreamingServer } from './streaming/streaming-server.js';
import { listPodSandbox, podSandboxStatus, removePodSandbox, runPodSandbox, stopPodSandbox } from './containers/sandboxes.js';
import { containerStats, listContainerStats, listPodSandboxStats, podSandboxStats } from './containers/stats.js';

export const KUBELET_ERROR_TO_GRPC_STATUS: ReadonlyMap<KubeletErrorCode, GrpcStatus> = new Map<KubeletErrorCode, GrpcStatus>([
  ['KLT_ERR_CRI_NOT_FOUND', GrpcStatus.NOT_FOUND],
  ['KLT_ERR_CRI_ALREADY_EXISTS', GrpcStatus.ALREADY_EXISTS],
  ['KLT_ERR_CRI_INVALID_ARGUMENT', GrpcStatus.INVALID_ARGUMENT],
  ['KLT_ERR_CRI_DEADLINE', GrpcStatus.DEADLINE_EXCEEDED],
  ['KLT_ERR_CRI_UNIMPLEMENTED', GrpcStatus.UNIMPLEMENTED],
  ['KLT_ERR_CRI_RESOURCE_EXHAUSTED', GrpcStatus.RESOURCE_EXHAUSTED],
]);

export function grpcStatusFor(err: unknown): { code: GrpcStatus; details: string } {
  if (err instanceof KubeletError) {
    return { code: KUBELET_ERROR_TO_GRPC_STATUS.get(err.code) ?? GrpcStatus.UNKNOWN, details: err.message };
  }
  return { code: GrpcStatus.UNKNOWN, details: err instanceof Error ? err.message : String(err) };
}

/** One RPC's work: the decoded request in, the answer out; a failure is thrown (a KubeletError where it has a status of its own). */
export type Operation<Req, Res> = (request: Req) => Res | Promise<Res>;

/**
 * The operations behind a generated handlers type: each handler's request and answer, without grpc-js's
 * call object. The generated types' string index signature (grpc-js's untyped implementation) is left out.
 */
export type Operations<Handlers> = {
  [Rpc in keyof Handlers as string extends Rpc ? never : Rpc]: Handlers[Rpc] extends handleUnaryCall<infer Req, infer Res> ? Operation<Req, Res> : never;
};

export type GrpcStatusOf = ReturnType<typeof grpcStatusFor>;

/**
 * Runs one operation, never synchronously (as a call that came off a socket), and hands `done` its
 * answer or its gRPC status. Statuses of the runtime's own (NOT_FOUND, …) are the caller's business
 * and logged at debug; anything unexpected (UNKNOWN) is a warning.
 */
export function settle<Req, Res>(rpc: string, logger: Logger, operation: Operation<Req, Res>, request: Req, done: (failure: GrpcStatusOf | null, answer?: Res) => void): void {
  Promise.resolve()
    .then(() => operation(request))
    .then(
      (answer) => done(null, answer),
      (err: unknown) => {
        const failure = grpcStatusFor(err);
        if (failure.code === GrpcStatus.UNKNOWN) logger.warn({ rpc, err }, 'CRI call failed');
        else logger.debug({ rpc, code: failure.code, details: failure.details }, 'CRI call refused');
        done(failure);
      },
    );
}

/** The grpc-js face of an operations table: one unary handler per operation. */
export function grpcHandlers<Handlers>(operations: Operations<Handlers>, logger: Logger): Handlers {
  const handlers: Record<string, UntypedHandleCall> = {};
  for (const [rpc, operation] of Object.entries(operations as Record<string, Operation<unknown, unknown>>)) {
    const handler: handleUnaryCall<unknown, unknown> = (call, callback) =>
      settle(rpc, logger, operation, call.request, (failure, answer) => (failure ? callback(failure) : callback(null, answer)));
    handlers[rpc] = handler;
  }
  // Each handler was made from the operation of the same name, whose types are those of Handlers[rpc].
  return handlers as Handlers;
}

/** int64 fields arrive as decimal strings (longs: String). */
function seconds(value: string): number {
  const n = Number(value || 0);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/** The RPCs the embedded runtime serves (all of RuntimeService). */
type ServedRuntimeRpcs = Pick<RuntimeServiceHandlers,
  | 'Version' | 'Status' | 'UpdateRuntimeConfig' | 'RuntimeConfig'
  | 'RunPodSandbox' | 'StopPodSandbox' | 'RemovePodSandbox' | 'PodSandboxStatus' | 'ListPodSandbox'
  | 'CreateContainer' | 'StartContainer' | 'StopContainer' | 'RemoveContainer' | 'ListContainers' | 'ContainerStatus'
  | 'UpdateContainerResources' | 'ReopenContainerLog' | 'ExecSync' | 'Exec' | 'Attach' | 'PortForward'
  | 'ContainerStats' | 'ListContainerStats' | 'PodSandboxStats' | 'ListPodSandboxStats'>;

export function runtimeOperations(state: RuntimeState, streaming: StreamingServer): Operations<ServedRuntimeRpcs> {
  return {
    Version: () => version(),
    Status: (r) => status(state.options.stateDir, r.verbose, state.podCIDR),
    UpdateRuntimeConfig: (r) => {
      state.podCIDR = r.runtime_config?.network_config?.pod_cidr ?? '';
      return {};
    },
    RuntimeConfig: () => ({ linux: { cgroup_driver: 'CGROUPFS' } }),
    RunPodSandbox: async (r) => ({ pod_sandbox_id: await runPodSandbox(state, r.config, r.runtime_handler) }),
    StopPodSandbox: async (r) => { await stopPodSandbox(state, r.pod_sandbox_id); return {}; },
    RemovePodSandbox: async (r) => { await removePodSandbox(state, r.pod_sandbox_id); return {}; },
    PodSandboxStatus: (r) => podSandboxStatus(state, r.pod_sandbox_id, r.verbose),
    ListPodSandbox: (r) => ({ items: listPodSandbox(state, r.filter) }),
    CreateContainer: async (r) => ({ container_id: await createContainer(state, r.pod_sandbox_id, r.config, r.sandbox_config) }),
    StartContainer: async (r) => { await startContainer(state, r.container_id); return {}; },
    StopContainer: async (r) => { await stopContainer(state, r.container_id, seconds(r.timeout)); return {}; },
    RemoveContainer: async (r) => { await removeContainer(state, r.container_id); return {}; },
    ListContainers: async (r) => ({ containers: await listContainers(state, r.filter) }),
    ContainerStatus: (r) => containerStatus(state, r.container_id, r.verbose),
    UpdateContainerResources: async (r) => { await updateContainerResources(state, r.container_id, r.linux); return {}; },
    ReopenContainerLog: async (r) => { await reopenContainerLog(state, r.container_id); return {}; },
    ExecSync: (r) => execSync(state, r.container_id, r.cmd, seconds(r.timeout)),
    Exec: async (r) => ({ url: await execUrl(state, streaming, r) }),
    Attach: async (r) => ({ url: await attachUrl(state, streaming, r) }),
    PortForward: (r) => ({ url: portForwardUrl(state, streaming, r) }),
    ContainerStats: async (r) => ({ stats: await containerStats(state, r.container_id) }),
    ListContainerStats: async (r) => ({ stats: await listContainerStats(state, r.filter) }),
    PodSandboxStats: async (r) => ({ stats: await podSandboxStats(state, r.pod_sandbox_id) }),
    ListPodSandboxStats: async (r) => ({ stats: await listPodSandboxStats(state, r.filter) }),
  };
}

export function imageOperations(images: EmbeddedImageService): Operations<ImageServiceHandlers> {
  return {
    ListImages: (r) => ({ images: images.listImages(r.filter) }),
    ImageStatus: (r) => images.imageStatus(r.image, r.verbose),
    PullImage: async (r) => ({ image_ref: await images.pullImage(r.image) }),
    RemoveImage: async (r) => { await images.removeImage(r.image); return {}; },
    ImageFsInfo: () => images.imageFsInfo(),
  };
}
