/**
 * `/exec`, `/attach` and `/portForward`, GET and POST, as Go's kubelet server routes them:
 * `/exec/{namespace}/{pod}/{container}` and `/exec/{namespace}/{pod}/{uid}/{container}`, the same
 * for `/attach`, `/portForward/{namespace}/{pod}` and `/portForward/{namespace}/{pod}/{uid}`.
 *
 * Each resolves its target, asks the runtime for a streaming session (CRI Exec, Attach or
 * PortForward) and proxies the client's upgraded connection to the URL the runtime answers
 * (stream-proxy.ts). Before that, in Go's order, with Go's codes and plain-text messages:
 * - 400 for options Go refuses (domain/kubelet-server/streaming-options.ts);
 * - 404 `pod does not exist` for a pod the kubelet does not have; for port forward, 404
 *   `pod not found` when the `{uid}` is not the pod's;
 * - 500 `container not found ("c")` for a container that is not running (or a `{uid}` that is not
 *   the pod's), 500 `pod not found ("name_namespace")` for a pod without a sandbox;
 * - 500 `Upgrade request required` for a request that asks for no upgrade (checked before the
 *   runtime is asked, so no session is left behind; Go asks first);
 * - the runtime's refusal: 404 for NotFound, 500 otherwise, with its message; a runtime without a
 *   streaming server (the embedded runtime until it has one) is named as such.
 * Attach runs with the terminal setting the container was created with (Go's rule: it cannot
 * change once the process runs), whatever the request's `tty` says.
 */
import type { ServerResponse } from 'node:http';
import { KubeletError } from '../../../domain/errors.js';
import {
  execCommand, isUpgradeRequest, isWebSocketRequest, parsePortForwardPorts, parseRemoteCommandOptions, type Query,
} from '../../../domain/kubelet-server/streaming-options.js';
import type { Pod } from '../../../domain/pod/types.js';
import type { Logger } from '../../../log.js';
import type { KubeletView, StreamingSession } from '../../../ports/kubelet-view.js';
import { proxyStream } from './stream-proxy.js';
import { upgradedConnection } from './upgrade-requests.js';
import { findContainer } from '../../../domain/pod/pod-containers.js';
import { replyText } from './reply.js';
import type { RouteRequest, Router } from './router.js';

export interface StreamingRouteOptions {
  /** streamingConnectionIdleTimeout in ms (Go's default 4 h); 0: never. */
  idleTimeoutMs: number;
  logger?: Logger;
}

interface Params {
  namespace: string;
  pod: string;
  uid?: string;
  container?: string;
}

type Req = RouteRequest & { params: Params };

/** A refusal before the upgrade: status and plain-text message. */
class Refusal {
  constructor(readonly status: number, readonly message: string) {}
}

function queryOf(req: Req): Query {
  return new URL(req.raw.url ?? '/', 'http://kubelet').searchParams;
}

async function podNamed(view: KubeletView, namespace: string, name: string): Promise<Pod> {
  const pod = (await view.pods()).find((p) => p.metadata.name === name && (p.metadata.namespace ?? 'default') === namespace);
  if (!pod) throw new Refusal(404, 'pod does not exist');
  return pod;
}

async function runningContainerId(view: KubeletView, p: Params): Promise<string> {
  const found = await view.runningContainer(p.namespace, p.pod, p.container!, p.uid);
  if (found.found !== 'running') throw new Refusal(500, `container not found (${JSON.stringify(p.container)})`);
  return found.containerId;
}

/** The session exec asks for. */
async function execSession(view: KubeletView, req: Req): Promise<StreamingSession> {
  const query = queryOf(req);
  const options = parseRemoteCommandOptions(query);
  if (!options.ok) throw new Refusal(400, options.message);
  await podNamed(view, req.params.namespace, req.params.pod);
  const containerId = await runningContainerId(view, req.params);
  const { stdin, stdout, stderr, tty } = options.value;
  return { kind: 'exec', request: { container_id: containerId, cmd: execCommand(query), stdin, stdout, stderr, tty } };
}

/** The session attach asks for, with the container's own terminal setting. */
async function attachSession(view: KubeletView, req: Req): Promise<StreamingSession> {
  const options = parseRemoteCommandOptions(queryOf(req));
  if (!options.ok) throw new Refusal(400, options.message);
  const pod = await podNamed(view, req.params.namespace, req.params.pod);
  const containerId = await runningContainerId(view, req.params);
  const spec = req.params.container === undefined ? undefined : findContainer(pod, req.params.container);
  const { stdin, stdout, stderr } = options.value;
  return { kind: 'attach', request: { container_id: containerId, stdin, stdout, stderr, tty: spec?.tty ?? false } };
}

/** The session port forward asks for: the pod's sandbox, and the ports when the query names them. */
async function portForwardSession(view: KubeletView, req: Req): Promise<StreamingSession> {
  const ports = parsePortForwardPorts(queryOf(req), isWebSocketRequest(req.raw.headers));
  if (!ports.ok) throw new Refusal(400, ports.message);
  const pod = await podNamed(view, req.params.namespace, req.params.pod);
  const uid = pod.metadata.uid ?? '';
  if (req.params.uid !== undefined && req.params.uid !== uid) throw new Refusal(404, 'pod not found');
  const sandbox = uid ? await view.podSandboxId(uid) : null;
  if (!sandbox) throw new Refusal(500, `pod not found (${JSON.stringify(`${req.params.pod}_${req.params.namespace}`)})`);
  return { kind: 'portForward', podSandboxId: sandbox, ports: ports.value };
}

const RPC: Record<StreamingSession['kind'], string> = { exec: 'Exec', attach: 'Attach', portForward: 'PortForward' };

/** The runtime's refusal as Go's streaming.WriteError answers it (NotFound 404, the rest 500). */
function runtimeRefusal(err: unknown, kind: StreamingSession['kind']): Refusal {
  if (!(err instanceof KubeletError)) return new Refusal(500, err instanceof Error ? err.message : String(err));
  if (err.code === 'KLT_ERR_CRI_UNIMPLEMENTED') {
    return new Refusal(500, `the container runtime does not serve ${RPC[kind]} (it has no CRI streaming server): ${err.message}`);
  }
  return new Refusal(err.code === 'KLT_ERR_CRI_NOT_FOUND' ? 404 : 500, err.message);
}

export function registerStreamingRoutes(router: Router, view: KubeletView, opts: StreamingRouteOptions): void {
  const handler = (resolve: (view: KubeletView, req: Req) => Promise<StreamingSession>) => async (route: RouteRequest, res: ServerResponse) => {
    const req = route as Req;
    const refuse = (r: Refusal) => replyText(res, r.status, r.message);
    let url: string;
    let session: StreamingSession | undefined;
    try {
      session = await resolve(view, req);
      if (!isUpgradeRequest(req.raw.headers)) throw new Refusal(500, 'Upgrade request required');
      url = await view.streamingUrl(session).catch((err: unknown) => { throw runtimeRefusal(err, session!.kind); });
    } catch (err) {
      if (err instanceof Refusal) return refuse(err);
      throw err;
    }
    const connection = upgradedConnection(req.raw);
    if (!connection) return refuse(new Refusal(500, 'Upgrade request required'));
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return refuse(new Refusal(500, `the runtime answered an invalid streaming URL: ${JSON.stringify(url)}`));
    }
    // The command and the URL (which names the session) may carry secrets: neither is logged.
    opts.logger?.info({ request: { kind: session.kind, namespace: req.params.namespace, pod: req.params.pod } }, 'Proxying streaming session');
    // The response is left unanswered: the socket is the proxy's from here.
    proxyStream(req.raw, connection, target, { idleTimeoutMs: opts.idleTimeoutMs, logger: opts.logger });
  };

  // Options come in the query; an upgrade request's bytes after the headers belong to the stream.
  const methods = ['GET', 'POST'];
  for (const [path, resolve] of [['exec', execSession], ['attach', attachSession]] as const) {
    router.add(methods, `/${path}/:namespace/:pod/:container`, handler(resolve));
    router.add(methods, `/${path}/:namespace/:pod/:uid/:container`, handler(resolve));
  }
  router.add(methods, '/portForward/:namespace/:pod', handler(portForwardSession));
  router.add(methods, '/portForward/:namespace/:pod/:uid', handler(portForwardSession));
}
