/**
 * The gRPC face of the embedded runtime: one unary handler per implemented RPC, each a thin call into
 * the runtime's operations (sandboxes.ts, containers.ts, exec.ts, stream-requests.ts, stats.ts) / EmbeddedImageService.
 * RPCs left out here (RuntimeConfig, …) get grpc-js's UNIMPLEMENTED, the answer containerd 1.6 gives to RPCs it lacks.
 * KubeletErrors become gRPC statuses through one table; anything else is UNKNOWN (gRPC 2), which is what
 * containerd answers for its plain errors.
 */
import { status as GrpcStatus, type handleUnaryCall } from '@grpc/grpc-js';
import { KubeletError, type KubeletErrorCode } from '../../domain/errors.js';
import type { ImageServiceHandlers } from '../../generated/runtime/v1/ImageService.js';
import type { RuntimeServiceHandlers } from '../../generated/runtime/v1/RuntimeService.js';
import type { Logger } from '../../log.js';
import { containerStatus, createContainer, listContainers, removeContainer, reopenContainerLog, startContainer, stopContainer, updateContainerResources } from './containers.js';
import { execSync } from './exec.js';
import type { EmbeddedImageService } from './image-service.js';
import type { RuntimeState } from './runtime-state.js';
import { status, version } from './runtime-service.js';
import { attachUrl, execUrl, portForwardUrl } from './stream-requests.js';
import type { StreamingServer } from './streaming/streaming-server.js';
import { listPodSandbox, podSandboxStatus, removePodSandbox, runPodSandbox, stopPodSandbox } from './sandboxes.js';
import { containerStats, listContainerStats, listPodSandboxStats, podSandboxStats } from './stats.js';

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

function unary<Req, Res>(rpc: string, logger: Logger, handle: (request: Req) => Res | Promise<Res>): handleUnaryCall<Req, Res> {
  return (call, callback) => {
    Promise.resolve()
      .then(() => handle(call.request))
      .then(
        (response) => callback(null, response),
        (err: unknown) => {
          const status = grpcStatusFor(err);
          if (status.code === GrpcStatus.UNKNOWN) logger.warn({ rpc, err }, 'CRI call failed');
          else logger.debug({ rpc, code: status.code, details: status.details }, 'CRI call refused');
          callback(status);
        },
      );
  };
}

/** int64 fields arrive as decimal strings (longs: String). */
function seconds(value: string): number {
  const n = Number(value || 0);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/** The RPCs the embedded runtime serves; the rest of RuntimeService (RuntimeConfig) answers UNIMPLEMENTED. */
type ServedRuntimeRpcs = Pick<RuntimeServiceHandlers,
  | 'Version' | 'Status' | 'UpdateRuntimeConfig'
  | 'RunPodSandbox' | 'StopPodSandbox' | 'RemovePodSandbox' | 'PodSandboxStatus' | 'ListPodSandbox'
  | 'CreateContainer' | 'StartContainer' | 'StopContainer' | 'RemoveContainer' | 'ListContainers' | 'ContainerStatus'
  | 'UpdateContainerResources' | 'ReopenContainerLog' | 'ExecSync' | 'Exec' | 'Attach' | 'PortForward'
  | 'ContainerStats' | 'ListContainerStats' | 'PodSandboxStats' | 'ListPodSandboxStats'>;

export function runtimeServiceHandlers(state: RuntimeState, streaming: StreamingServer, logger: Logger): ServedRuntimeRpcs {
  return {
    Version: unary('Version', logger, () => version()),
    Status: unary('Status', logger, (r) => status(state.options.stateDir, r.verbose)),
    UpdateRuntimeConfig: unary('UpdateRuntimeConfig', logger, () => ({})),
    RunPodSandbox: unary('RunPodSandbox', logger, async (r) => ({ pod_sandbox_id: await runPodSandbox(state, r.config, r.runtime_handler) })),
    StopPodSandbox: unary('StopPodSandbox', logger, async (r) => { await stopPodSandbox(state, r.pod_sandbox_id); return {}; }),
    RemovePodSandbox: unary('RemovePodSandbox', logger, async (r) => { await removePodSandbox(state, r.pod_sandbox_id); return {}; }),
    PodSandboxStatus: unary('PodSandboxStatus', logger, (r) => podSandboxStatus(state, r.pod_sandbox_id, r.verbose)),
    ListPodSandbox: unary('ListPodSandbox', logger, (r) => ({ items: listPodSandbox(state, r.filter) })),
    CreateContainer: unary('CreateContainer', logger, async (r) => ({ container_id: await createContainer(state, r.pod_sandbox_id, r.config, r.sandbox_config) })),
    StartContainer: unary('StartContainer', logger, async (r) => { await startContainer(state, r.container_id); return {}; }),
    StopContainer: unary('StopContainer', logger, async (r) => { await stopContainer(state, r.container_id, seconds(r.timeout)); return {}; }),
    RemoveContainer: unary('RemoveContainer', logger, async (r) => { await removeContainer(state, r.container_id); return {}; }),
    ListContainers: unary('ListContainers', logger, async (r) => ({ containers: await listContainers(state, r.filter) })),
    ContainerStatus: unary('ContainerStatus', logger, (r) => containerStatus(state, r.container_id, r.verbose)),
    UpdateContainerResources: unary('UpdateContainerResources', logger, async (r) => { await updateContainerResources(state, r.container_id, r.linux); return {}; }),
    ReopenContainerLog: unary('ReopenContainerLog', logger, async (r) => { await reopenContainerLog(state, r.container_id); return {}; }),
    ExecSync: unary('ExecSync', logger, (r) => execSync(state, r.container_id, r.cmd, seconds(r.timeout))),
    Exec: unary('Exec', logger, async (r) => ({ url: await execUrl(state, streaming, r) })),
    Attach: unary('Attach', logger, async (r) => ({ url: await attachUrl(state, streaming, r) })),
    PortForward: unary('PortForward', logger, (r) => ({ url: portForwardUrl(state, streaming, r) })),
    ContainerStats: unary('ContainerStats', logger, async (r) => ({ stats: await containerStats(state, r.container_id) })),
    ListContainerStats: unary('ListContainerStats', logger, async (r) => ({ stats: await listContainerStats(state, r.filter) })),
    PodSandboxStats: unary('PodSandboxStats', logger, async (r) => ({ stats: await podSandboxStats(state, r.pod_sandbox_id) })),
    ListPodSandboxStats: unary('ListPodSandboxStats', logger, async (r) => ({ stats: await listPodSandboxStats(state, r.filter) })),
  };
}

export function imageServiceHandlers(images: EmbeddedImageService, logger: Logger): ImageServiceHandlers {
  return {
    ListImages: unary('ListImages', logger, (r) => ({ images: images.listImages(r.filter) })),
    ImageStatus: unary('ImageStatus', logger, (r) => images.imageStatus(r.image, r.verbose)),
    PullImage: unary('PullImage', logger, async (r) => ({ image_ref: await images.pullImage(r.image) })),
    RemoveImage: unary('RemoveImage', logger, async (r) => { await images.removeImage(r.image); return {}; }),
    ImageFsInfo: unary('ImageFsInfo', logger, () => images.imageFsInfo()),
  };
}
