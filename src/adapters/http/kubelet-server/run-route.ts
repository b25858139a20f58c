/**
 * `POST /run/{namespace}/{pod}/{container}` and `POST /run/{namespace}/{pod}/{uid}/{container}`
 * with `?cmd=`: runs the command in the container and answers its output, as Go's getRun does
 * (RunInContainer: CRI ExecSync without a command timeout; stdout then stderr, not interleaved; the
 * command split on single spaces; answered as `application/json`, whatever the output is).
 *
 * Statuses: 404 `pod does not exist` (also when `uid` is not the pod's), 404 when the pod has no
 * such container or it is not running (Go answers 500 `container not found`), 400 without `cmd`
 * (Go runs an empty command and answers 500), 500 naming the exit code and stderr when the command
 * fails (Go's CRI client's wording), 500 when the runtime cannot run it. Other methods get 405.
 */
import type { ServerResponse } from 'node:http';
import { KubeletError } from '../../../domain/errors.js';
import type { Logger } from '../../../log.js';
import type { KubeletView } from '../../../ports/kubelet-view.js';
import { replyJson, replyText } from './reply.js';
import type { RouteRequest, Router } from './router.js';

export function registerRun(router: Router, view: KubeletView, logger?: Logger): void {
  const run = async (req: RouteRequest, res: ServerResponse) => {
    const text = (status: number, body: string) => replyText(res, status, `${body}\n`);
    const { namespace, pod, container } = req.params as Record<'namespace' | 'pod' | 'container', string>;
    const uid = req.params.uid;
    const raw = req.query.cmd;
    const cmd = Array.isArray(raw) ? raw[0] : raw;
    if (!cmd) return text(400, 'missing the command to run: ?cmd=');
    const argv = cmd.split(' ');

    const target = await view.runningContainer(namespace, pod, container, uid);
    if (target.found === 'noPod') return text(404, 'pod does not exist');
    if (target.found === 'noContainer') return text(404, `container ${JSON.stringify(container)} not found in pod ${JSON.stringify(pod)}`);
    if (target.found === 'notRunning') return text(404, `container ${JSON.stringify(container)} in pod ${JSON.stringify(pod)} is not running`);

    // The command is the caller's and may carry secrets: it is not logged.
    logger?.info({ request: { namespace, pod, container } }, 'Running command in container');
    let out;
    try {
      out = await view.execInContainer(target.containerId, argv);
    } catch (err) {
      if (err instanceof KubeletError && err.code === 'KLT_ERR_CRI_NOT_FOUND') return text(404, `container ${JSON.stringify(container)} in pod ${JSON.stringify(pod)} is not running`);
      logger?.warn({ err, request: { namespace, pod, container } }, 'Running command in container failed');
      return text(500, err instanceof Error ? err.message : String(err));
    }
    if (out.exitCode !== 0) return text(500, `command '${argv.join(' ')}' exited with ${out.exitCode}: ${out.stderr.toString('utf8')}`);
    return replyJson(res, Buffer.concat([out.stdout, out.stderr]));
  };

  // The command comes in the query; a body (curl -d sends a form) is read, bounded, and ignored.
  router.add(['POST'], '/run/:namespace/:pod/:container', run);
  router.add(['POST'], '/run/:namespace/:pod/:uid/:container', run);
  router.add(['GET', 'PUT', 'PATCH', 'DELETE'], '/run/*', (_req, res) => replyText(res, 405, '405: Method Not Allowed\n'));
}
