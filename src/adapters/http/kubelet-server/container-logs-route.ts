/**
 * `GET /containerLogs/{namespace}/{pod}/{container}`: the container's CRI log file, shaped by the
 * query (tailLines, limitBytes, timestamps, previous, sinceSeconds/sinceTime, follow). Statuses and
 * bodies as Go's getContainerLogs: 400/422 for a bad query, 404 `pod "…" does not exist` and
 * `container "…" not found in pod "…"`, 400 with Go's words when the pod's status names no
 * instance to read (waiting to start, no previous instance) or its file cannot be opened (a link is
 * never opened: adapters/fs/log-directory.ts). A container waiting to restart shows the instance
 * that last terminated. The body streams (chunked), so `follow` delivers lines as they are written.
 */
import { Readable } from 'node:stream';
import { KubeletError } from '../../../domain/errors.js';
import { parseLogOptions } from '../../../domain/kubelet-server/log-options.js';
import type { Pod } from '../../../domain/pod/types.js';
import type { KubeletView } from '../../../ports/kubelet-view.js';
import { readContainerLog } from '../../fs/container-log-reader.js';
import { openLogFile } from '../../fs/log-directory.js';
import { findContainer } from '../../../domain/pod/pod-containers.js';
import { reply, replyText, TEXT_PLAIN } from './reply.js';
import type { Router } from './router.js';

export interface ContainerLogLimits {
  /** How often a follow re-reads the file, looks for a rotation and asks whether the container still runs. */
  followPollMs: number;
  /** The longest a follow stream may last (Go: the server's 4 h write timeout). */
  maxFollowMs: number;
}

function hasContainer(pod: Pod, name: string): boolean {
  return findContainer(pod, name) !== undefined;
}

/**
 * Whether the instance running now is still running later. Go follows one container ID: when that
 * instance exits (or restarts: the next one has another ID and another file) the follow ends; a
 * container not running when the request came ends it at the first end of file.
 */
async function followedInstanceRunning(view: KubeletView, namespace: string, pod: string, container: string): Promise<() => Promise<boolean>> {
  const followed = await view.runningContainer(namespace, pod, container);
  if (followed.found !== 'running') return async () => false;
  return async () => {
    const now = await view.runningContainer(namespace, pod, container);
    return now.found === 'running' && now.containerId === followed.containerId;
  };
}

export function registerContainerLogs(router: Router, view: KubeletView, limits: ContainerLogLimits): void {
  router.get(
    '/containerLogs/:namespace/:pod/:container',
    async (req, res) => {
      const { namespace, pod: podName, container } = req.params as { namespace: string; pod: string; container: string };
      const text = (code: number, body: string) => replyText(res, code, body);
      const parsed = parseLogOptions(req.query as Record<string, string | string[]>, Date.now());
      if (!parsed.ok) return text(parsed.status, parsed.body);
      const opts = parsed.options;

      const pod = (await view.pods()).find((p) => p.metadata.name === podName && (p.metadata.namespace ?? 'default') === namespace);
      if (!pod) return text(404, `pod ${JSON.stringify(podName)} does not exist`);
      if (!hasContainer(pod, container)) return text(404, `container ${JSON.stringify(container)} not found in pod ${JSON.stringify(podName)}`);

      const file = await view.containerLogPath(namespace, podName, container, opts.previous);
      if ('error' in file) return text(400, file.error);
      const { path } = file;

      const abort = new AbortController();
      res.on('close', () => abort.abort());
      const follow = opts.follow
        ? {
            running: await followedInstanceRunning(view, namespace, podName, container),
            pollMs: limits.followPollMs,
            maxFollowMs: limits.maxFollowMs,
            signal: abort.signal,
          }
        : undefined;
      // A quiet container must not look like an idle connection; maxFollowMs bounds the stream.
      if (follow) req.raw.socket?.setTimeout?.(0);

      // Open the file before answering 200, so a missing one (or a link) is still a clean 400.
      try {
        await (await openLogFile(path)).close();
      } catch (err) {
        const why = err instanceof KubeletError ? err.message : (err as NodeJS.ErrnoException).code ?? (err as Error).message;
        return text(400, `failed to open log file ${JSON.stringify(path)}: ${why}`);
      }
      const body = Readable.from(readContainerLog(path, opts, follow));
      return reply(res, 200, body, { type: TEXT_PLAIN });
    },
  );
}
