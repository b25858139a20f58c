/**
 * runtime.v1.ImageService over names only. PullImage never downloads anything: it records the name,
 * so the image becomes "present" (containerd offline would fail the pull instead). Registry
 * credentials sent with it (the kubelet's image pull secrets and plugins) are accepted and unused:
 * no registry is contacted, so a private image "pulls" without them too. A name on a registry under
 * `.invalid` fails to pull, as a real runtime fails on a host that does not resolve: a pull
 * failure (ErrImagePull, then ImagePullBackOff) without a registry to break.
 * ImageFsInfo reports the file system holding the state directory.
 */
import { statfs } from 'node:fs/promises';
import { KubeletError } from '../../../domain/errors.js';
import type { Image } from '../../../generated/runtime/v1/Image.js';
import type { ImageFilter__Output } from '../../../generated/runtime/v1/ImageFilter.js';
import type { ImageFsInfoResponse } from '../../../generated/runtime/v1/ImageFsInfoResponse.js';
import type { ImageSpec__Output } from '../../../generated/runtime/v1/ImageSpec.js';
import type { ImageStatusResponse } from '../../../generated/runtime/v1/ImageStatusResponse.js';
import { isOnInvalidRegistry, normalizeImageRef } from './image-ref.js';
import type { ImageStore } from './image-store.js';

export class EmbeddedImageService {
  constructor(
    private readonly store: ImageStore,
    private readonly stateDir: string,
    private readonly nowNs: () => bigint,
  ) {}

  listImages(filter: ImageFilter__Output | null): Image[] {
    const wanted = filter?.image?.image;
    if (!wanted) return this.store.list();
    const found = this.store.find(wanted);
    return found ? [found] : [];
  }

  /** An absent image is `image: null`, not an error (what the kubelet's IfNotPresent relies on). */
  imageStatus(spec: ImageSpec__Output | null, verbose: boolean): ImageStatusResponse {
    const image = spec?.image ? this.store.find(spec.image) ?? null : null;
    const info: Record<string, string> = verbose && image ? { info: JSON.stringify({ embedded: true, content: 'none' }) } : {};
    return { image, info };
  }

  async pullImage(spec: ImageSpec__Output | null): Promise<string> {
    if (!spec?.image) throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', 'PullImage needs an image name');
    const ref = normalizeImageRef(spec.image);
    if (isOnInvalidRegistry(ref)) {
      const host = ref.slice(0, ref.indexOf('/'));
      throw new KubeletError('KLT_ERR_CRI_NOT_FOUND', `failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": dial tcp: lookup ${host}: no such host`);
    }
    return (await this.store.record(spec.image)).id;
  }

  async removeImage(spec: ImageSpec__Output | null): Promise<void> {
    if (!spec?.image) throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', 'RemoveImage needs an image name or id');
    await this.store.remove(spec.image);
  }

  async imageFsInfo(): Promise<ImageFsInfoResponse> {
    const fs = await statfs(this.stateDir, { bigint: true });
    return {
      image_filesystems: [{
        timestamp: this.nowNs().toString(),
        fs_id: { mountpoint: this.stateDir },
        used_bytes: { value: ((fs.blocks - fs.bfree) * fs.bsize).toString() },
        inodes_used: { value: (fs.files - fs.ffree).toString() },
      }],
      // containerd 1.6 does not split image and container file systems either.
      container_filesystems: [],
    };
  }
}
