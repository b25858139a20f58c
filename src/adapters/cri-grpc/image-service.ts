/** runtime.v1.ImageService over a grpc-js client. */
import type * as grpc from '@grpc/grpc-js';
import type {
  CallOptions, CriImageService, Image, ImageFsInfoResponse, ImageSpec, ImageStatusResponse, PodSandboxConfig,
} from '../../ports/cri.js';
import { deadlineMs, type CallKind, type CriDeadlines } from './deadlines.js';
import { unaryCall } from './unary-call.js';

export function createImageService(client: grpc.Client, deadlines: CriDeadlines): CriImageService {
  const call = <Res>(rpc: string, request: object, kind: CallKind, opts?: CallOptions): Promise<Res> =>
    unaryCall<Res>(client, rpc, request, opts?.timeoutMs ?? deadlineMs(deadlines, kind));

  return {
    listImages: async (filter?: { image?: ImageSpec | null }, opts?: CallOptions) =>
      (await call<{ images: Image[] }>('ListImages', { filter }, 'read', opts)).images,
    imageStatus: (image, verbose = false, opts) =>
      call<ImageStatusResponse>('ImageStatus', { image, verbose }, 'read', opts),
    pullImage: async (image: ImageSpec, sandboxConfig?: PodSandboxConfig, opts?: CallOptions) =>
      (await call<{ image_ref: string }>('PullImage', { image, sandbox_config: sandboxConfig }, 'pull', opts)).image_ref,
    removeImage: async (image, opts) => {
      await call('RemoveImage', { image }, 'mutate', opts);
    },
    imageFsInfo: (opts) => call<ImageFsInfoResponse>('ImageFsInfo', {}, 'read', opts),
  };
}
