/** runtime.v1.ImageService over a CRI channel. */
import type { ImageServiceDefinition } from '../../generated/runtime/v1/ImageService.js';
import type { CallOptions, CriImageService } from '../../ports/cri.js';
import type { ServiceCodecs } from '../proto-service.js';
import { deadlineMs, type CallKind, type CriDeadlines } from './deadlines.js';
import { type CriChannel, unaryCall, type UnaryMethod } from './unary-call.js';

export function createImageService(channel: CriChannel, service: ServiceCodecs<ImageServiceDefinition>, deadlines: CriDeadlines): CriImageService {
  const call = <Req, Res>(method: UnaryMethod<Req, Res>, request: Req, kind: CallKind, opts?: CallOptions): Promise<Res> =>
    unaryCall(channel.client(), method, request, opts?.timeoutMs ?? deadlineMs(deadlines, kind));

  return {
    listImages: async (filter, opts) => (await call(service.ListImages, { filter }, 'read', opts)).images,
    imageStatus: (image, verbose = false, opts) => call(service.ImageStatus, { image, verbose }, 'read', opts),
    pullImage: async (image, sandboxConfig, opts) =>
      (await call(service.PullImage, { image, sandbox_config: sandboxConfig, ...(opts?.auth ? { auth: opts.auth } : {}) }, 'pull', opts)).image_ref,
    removeImage: async (image, opts) => {
      await call(service.RemoveImage, { image }, 'mutate', opts);
    },
    imageFsInfo: (opts) => call(service.ImageFsInfo, {}, 'read', opts),
  };
}
