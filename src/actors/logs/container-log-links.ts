/**
 * What the Go kubelet's kuberuntime does around two CRI calls, for every caller of the CRI client
 * (the pod workers, the container deletor, the garbage collector):
 * - after StartContainer, the legacy link `<linkDir>/<pod>_<ns>_<container>-<id>.log` to the
 *   container's log, when that log exists (startContainer's legacyLogSymlink; a failure is only logged);
 * - before RemoveContainer, the container's log, its rotated files and its link removed
 *   (removeContainerLog with the log manager's Clean); a failure there keeps the container, as in Go,
 *   so the next removal tries again.
 * Names come from the container's labels, as Go's removal reads them.
 */
import { KubeletError } from '../../domain/errors.js';
import { legacyLogSymlink } from '../../domain/runtime/legacy-log-symlink.js';
import { containerNameLabel, podNameLabel, podNamespaceLabel } from '../../domain/runtime/labels.js';
import type { Logger } from '../../log.js';
import type { ContainerLogHost } from '../../ports/container-logs.js';
import type { CallOptions, ContainerStatus, CriClient, CriRuntimeService } from '../../ports/cri.js';

const linkOf = (dir: string, s: ContainerStatus) =>
  legacyLogSymlink(dir, s.id, s.labels[containerNameLabel] ?? s.metadata?.name ?? '', s.labels[podNameLabel] ?? '', s.labels[podNamespaceLabel] ?? '');

export function withContainerLogLinks(cri: CriClient, host: ContainerLogHost, logger: Logger): CriClient {
  const { files, linkDir } = host;
  const inner = cri.runtime;

  const startContainer = async (id: string, opts?: CallOptions): Promise<void> => {
    await inner.startContainer(id, opts);
    try {
      const status = (await inner.containerStatus(id)).status;
      if (!status?.log_path || (await files.size(status.log_path)) === null) return;
      await files.symlink(status.log_path, linkOf(linkDir, status));
    } catch (err) {
      logger.error({ err, containerID: id }, 'Failed to create legacy symbolic link');
    }
  };

  const removeContainer = async (id: string, opts?: CallOptions): Promise<void> => {
    let status: ContainerStatus | null = null;
    try {
      status = (await inner.containerStatus(id)).status;
    } catch (err) {
      // Already gone: nothing of its logs can be found; RemoveContainer answers for it.
      if (!(err instanceof KubeletError && err.code === 'KLT_ERR_CRI_NOT_FOUND')) throw err;
    }
    if (status) {
      if (status.log_path) {
        for (const f of [...await files.siblings(status.log_path), status.log_path]) await files.remove(f);
      }
      await files.remove(linkOf(linkDir, status));
    }
    await inner.removeContainer(id, opts);
  };

  const runtime = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'startContainer') return startContainer;
      if (prop === 'removeContainer') return removeContainer;
      return Reflect.get(target, prop, receiver) as unknown;
    },
  }) satisfies CriRuntimeService;
  return { runtime, images: cri.images, close: () => cri.close() };
}
