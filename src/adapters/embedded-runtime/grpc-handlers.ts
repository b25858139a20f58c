/**
 * The gRPC face of the embedded runtime: one unary handler per implemented RPC, each a thin call into
 * EmbeddedRuntimeService / EmbeddedImageService. RPCs left out here (Attach, Exec, PortForward,
 * RuntimeConfig, …) get grpc-js's UNIMPLEMENTED, the answer containerd 1.6 gives to RPCs it lacks.
 * KubeletErrors become gRPC statuses through one table; anything else is UNKNOWN (gRPC 2), which is what
 * containerd answers for its plain errors.
 */
import { status as GrpcStatus, type ServerUnaryCall, type sendUnaryData, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { KubeletError, type KubeletErrorCode } from '../../domain/errors.js';
import type { Logger } from '../../log.js';
import type { EmbeddedImageService } from './image-service.js';
import type { EmbeddedRuntimeService } from './runtime-service.js';

export const KUBELET_ERROR_TO_GRPC_STATUS: ReadonlyMap<KubeletErrorCode, GrpcStatus> = new Map<KubeletErrorCode, GrpcStatus>([
  ['KLT_ERR_CRI_NOT_FOUND', GrpcStatus.NOT_FOUND],
  ['KLT_ERR_CRI_ALREADY_EXISTS', GrpcStatus.ALREADY_EXISTS],
  ['KLT_ERR_CRI_INVALID_ARGUMENT', GrpcStatus.INVALID_ARGUMENT],
  ['KLT_ERR_CRI_DEADLINE', GrpcStatus.DEADLINE_EXCEEDED],
  ['KLT_ERR_CRI_UNIMPLEMENTED', GrpcStatus.UNIMPLEMENTED],
]);

export function grpcStatusFor(err: unknown): { code: GrpcStatus; details: string } {
  if (err instanceof KubeletError) {
    return { code: KUBELET_ERROR_TO_GRPC_STATUS.get(err.code) ?? GrpcStatus.UNKNOWN, details: err.message };
  }
  return { code: GrpcStatus.UNKNOWN, details: err instanceof Error ? err.message : String(err) };
}

// Requests arrive as proto-loader objects (snake_case, defaults filled in); we read them loosely.
type Request = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function unary(rpc: string, logger: Logger, handle: (request: Request) => unknown): (call: ServerUnaryCall<Request, unknown>, callback: sendUnaryData<unknown>) => void {
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
function seconds(value: unknown): number {
  const n = Number(value ?? 0);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

export function runtimeServiceHandlers(runtime: EmbeddedRuntimeService, logger: Logger): UntypedServiceImplementation {
  return {
    Version: unary('Version', logger, () => runtime.version()),
    Status: unary('Status', logger, (r) => runtime.status(Boolean(r.verbose))),
    UpdateRuntimeConfig: unary('UpdateRuntimeConfig', logger, () => ({})),
    RunPodSandbox: unary('RunPodSandbox', logger, async (r) => ({ pod_sandbox_id: await runtime.runPodSandbox(r.config, r.runtime_handler ?? '') })),
    StopPodSandbox: unary('StopPodSandbox', logger, async (r) => { await runtime.stopPodSandbox(r.pod_sandbox_id); return {}; }),
    RemovePodSandbox: unary('RemovePodSandbox', logger, async (r) => { await runtime.removePodSandbox(r.pod_sandbox_id); return {}; }),
    PodSandboxStatus: unary('PodSandboxStatus', logger, (r) => runtime.podSandboxStatus(r.pod_sandbox_id, Boolean(r.verbose))),
    ListPodSandbox: unary('ListPodSandbox', logger, (r) => ({ items: runtime.listPodSandbox(r.filter) })),
    CreateContainer: unary('CreateContainer', logger, async (r) => ({ container_id: await runtime.createContainer(r.pod_sandbox_id, r.config, r.sandbox_config) })),
    StartContainer: unary('StartContainer', logger, async (r) => { await runtime.startContainer(r.container_id); return {}; }),
    StopContainer: unary('StopContainer', logger, async (r) => { await runtime.stopContainer(r.container_id, seconds(r.timeout)); return {}; }),
    RemoveContainer: unary('RemoveContainer', logger, async (r) => { await runtime.removeContainer(r.container_id); return {}; }),
    ListContainers: unary('ListContainers', logger, async (r) => ({ containers: await runtime.listContainers(r.filter) })),
    ContainerStatus: unary('ContainerStatus', logger, (r) => runtime.containerStatus(r.container_id, Boolean(r.verbose))),
    UpdateContainerResources: unary('UpdateContainerResources', logger, (r) => { runtime.updateContainerResources(r.container_id); return {}; }),
    ReopenContainerLog: unary('ReopenContainerLog', logger, async (r) => { await runtime.reopenContainerLog(r.container_id); return {}; }),
    ExecSync: unary('ExecSync', logger, (r) => runtime.execSync(r.container_id, r.cmd ?? [], seconds(r.timeout))),
    ContainerStats: unary('ContainerStats', logger, async (r) => ({ stats: await runtime.containerStats(r.container_id) })),
    ListContainerStats: unary('ListContainerStats', logger, async (r) => ({ stats: await runtime.listContainerStats(r.filter) })),
    PodSandboxStats: unary('PodSandboxStats', logger, async (r) => ({ stats: await runtime.podSandboxStats(r.pod_sandbox_id) })),
    ListPodSandboxStats: unary('ListPodSandboxStats', logger, async (r) => ({ stats: await runtime.listPodSandboxStats(r.filter) })),
  };
}

export function imageServiceHandlers(images: EmbeddedImageService, logger: Logger): UntypedServiceImplementation {
  return {
    ListImages: unary('ListImages', logger, (r) => ({ images: images.listImages(r.filter) })),
    ImageStatus: unary('ImageStatus', logger, (r) => images.imageStatus(r.image, Boolean(r.verbose))),
    PullImage: unary('PullImage', logger, async (r) => ({ image_ref: await images.pullImage(r.image) })),
    RemoveImage: unary('RemoveImage', logger, async (r) => { await images.removeImage(r.image); return {}; }),
    ImageFsInfo: unary('ImageFsInfo', logger, () => images.imageFsInfo()),
  };
}
