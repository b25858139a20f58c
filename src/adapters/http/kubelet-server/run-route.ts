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
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { KubeletError } from '../../../domain/errors.js';
import type { Logger } from '../../../log.js';
import type { KubeletView } from '../../../ports/kubelet-view.js';

interface RunParams {
  namespace: string;
  pod: string;
  uid?: string;
  container: string;
}

export function registerRun(app: FastifyInstance, view: KubeletView, logger?: Logger): void {
  const run = async (req: FastifyRequest<{ Params: RunParams; Querystring: Record<string, string | string[] | undefined> }>, reply: FastifyReply) => {
    const text = (status: number, body: string) => reply.code(status).type('text/plain; charset=utf-8').send(`${body}\n`);
    const { namespace, pod, uid, container } = req.params;
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
    return reply.code(200).type('application/json').send(Buffer.concat([out.stdout, out.stderr]));
  };

  app.register(async (scope) => {
    // The command comes in the query; a body (curl -d sends a form) is read, bounded, and ignored.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, _body, done) => done(null, undefined));
    scope.post('/run/:namespace/:pod/:container', run);
    scope.post('/run/:namespace/:pod/:uid/:container', run);
  });
  app.route({
    method: ['GET', 'PUT', 'PATCH', 'DELETE'],
    url: '/run/*',
    handler: async (_req, reply) => reply.code(405).type('text/plain; charset=utf-8').send('405: Method Not Allowed\n'),
  });
}
