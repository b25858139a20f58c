/**
 * What the Go kubelet's kuberuntime does around two CRI calls, for every caller of the CRI client
 * (the pod workers, the container deletor, the garbage collector):
 * - after StartContainer, the legacy link `<linkDir>/<pod>_<ns>_<container>-<id>.log` to the
 *   container's log, when that log exists (startContainer's legacyLogSymlink; a failure is only logged);
 * - before RemoveContainer, the container's log, its rotated files and its link removed
 *   (removeContainerLog with the log manager's Clean); a failure there keeps the container, as in Go,
 *   so the next removal tries again.
 * Names come from the container's labels, as Go's removal reads them. The link's target and names
 * are taken from the CreateContainer that made the container when it went through here (Go builds
 * them from the config too), so a start costs no ContainerStatus; only a container created
 * elsewhere is looked up.
 */
import { join } from 'node:path';
import { KubeletError } from '../../domain/errors.js';
import { legacyLogSymlink } from '../../domain/runtime/legacy-log-symlink.js';
import { containerNameLabel, podNameLabel, podNamespaceLabel } from '../../domain/runtime/labels.js';
import type { Logger } from '../../log.js';
import type { ContainerLogHost } from '../../ports/container-logs.js';
import type { CallOptions, ContainerStatus, CriClient, CriRuntimeService } from '../../ports/cri.js';

/** What names a container's link: its labels, else its metadata's name. */
interface Named { labels?: Record<string, string>; metadata?: { name?: string } | null }

const linkOf = (dir: string, id: string, c: Named) =>
  legacyLogSymlink(dir, id, c.labels?.[containerNameLabel] ?? c.metadata?.name ?? '', c.labels?.[podNameLabel] ?? '', c.labels?.[podNamespaceLabel] ?? '');

export function withContainerLogLinks(cri: CriClient, host: ContainerLogHost, logger: Logger): CriClient {
  const { files, linkDir } = host;
  const inner = cri.runtime;
  /** Containers created here and not started yet: their log path and link. */
  const created = new Map<string, { logPath: string; link: string }>();

  const createContainer: CriRuntimeService['createContainer'] = async (sandboxId, config, sandboxConfig, opts) => {
    const id = await inner.createContainer(sandboxId, config, sandboxConfig, opts);
    if (sandboxConfig.log_directory && config.log_path) created.set(id, { logPath: join(sandboxConfig.log_directory, config.log_path), link: linkOf(linkDir, id, config) });
    return id;
  };

  const startContainer = async (id: string, opts?: CallOptions): Promise<void> => {
    const known = created.get(id);
    created.delete(id);
    await inner.startContainer(id, opts);
    try {
      const status = known ? null : (await inner.containerStatus(id)).status;
      const target = known ?? (status?.log_path ? { logPath: status.log_path, link: linkOf(linkDir, id, status) } : null);
      if (!target || (await files.size(target.logPath)) === null) return;
      await files.symlink(target.logPath, target.link);
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
      await files.removeLink(linkOf(linkDir, id, status));
    }
    created.delete(id);
    await inner.removeContainer(id, opts);
  };

  const runtime = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'createContainer') return createContainer;
      if (prop === 'startContainer') return startContainer;
      if (prop === 'removeContainer') return removeContainer;
      return Reflect.get(target, prop, receiver) as unknown;
    },
  }) satisfies CriRuntimeService;
  return { runtime, images: cri.images, close: () => cri.close() };
}
