/**
 * `pods/exec`, `pods/attach` and `pods/portforward` (GET and POST) and `nodes/proxy` (any method),
 * passed to the kubelet as a real API server passes them: an upgrade-aware proxy (the kubelet
 * server's own, src/adapters/http/kubelet-server/stream-proxy.ts) that authenticates to the
 * kubelet with the API server's client certificate (kubelet-client.ts) and does not verify the
 * kubelet's serving certificate (Go without --kubelet-certificate-authority).
 *
 * The kubelet URL is Go's (the pod strategy's ExecLocation, AttachLocation, PortForwardLocation):
 * - exec: `/exec/{ns}/{pod}/{container}` with `command` repeated and the streams as the kubelet
 *   reads them (`input`, `output`, `error`, `tty` = 1; PodExecOptions' stdout and stderr default
 *   to true); the container is the one asked for or the pod's only one (kubelet-location.ts);
 * - attach: `/attach/{ns}/{pod}/{container}`, the same streams;
 * - port forward: `/portForward/{ns}/{pod}`, the `ports` asked for as one `port` list;
 * - nodes/proxy: `/api/v1/nodes/{node}/proxy/{path}` is the kubelet's `/{path}` with the query.
 * A pod not yet on a node is a 400 `pod X does not have a host assigned`. exec, attach and port
 * forward must ask for an upgrade (400 `Upgrade request required` otherwise); the kubelet's answer
 * before the upgrade (its refusals) reaches the client as the kubelet gave it; a kubelet that cannot
 * be reached is a 500 Status `error dialing backend: …`.
 * Where a real API server differs: a WebSocket v5 exec is translated to SPDY towards the kubelet
 * (TranslateStreamCloseWebsocketRequests); here every upgrade passes as it came.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request } from 'node:https';
import type { Duplex } from 'node:stream';
import { proxyStream } from '../../src/adapters/http/kubelet-server/stream-proxy.js';
import { upgradedConnection } from '../../src/adapters/http/kubelet-server/upgrade-requests.js';
import { writeRawHttpAnswer } from '../../src/adapters/stream-protocols/raw-http-error.js';
import { containerOf, kubeletAddress, podOf } from './kubelet-location.js';
import type { KubeletClientIdentity } from './pod-log-proxy.js';
import { ApiError, apiErrors, statusBody } from './status.js';
import type { ObjectStore } from './store.js';

export type StreamSubresource = 'exec' | 'attach' | 'portforward';
export type KubeletProxyTarget =
  | { kind: 'pod'; namespace: string; pod: string; subresource: StreamSubresource }
  | { kind: 'node'; node: string; path: string };

const POD_STREAM_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/(exec|attach|portforward)$/;
const NODE_PROXY_PATH = /^\/api\/v1\/nodes\/([^/]+)\/proxy(\/.*)?$/;

/** What a request path proxies to a kubelet, or undefined for any other path. */
export function kubeletProxyTarget(method: string, pathname: string): KubeletProxyTarget | undefined {
  const pod = POD_STREAM_PATH.exec(pathname);
  if (pod && (method === 'GET' || method === 'POST')) {
    return { kind: 'pod', namespace: decodeURIComponent(pod[1]!), pod: decodeURIComponent(pod[2]!), subresource: pod[3] as StreamSubresource };
  }
  const node = NODE_PROXY_PATH.exec(pathname);
  return node ? { kind: 'node', node: decodeURIComponent(node[1]!), path: node[2] ?? '/' } : undefined;
}

/** A v1 bool query parameter as Go's conversion reads it: absent is the default, `0`/`false` false, anything else true. */
function flag(query: URLSearchParams, name: string, byDefault: boolean): boolean {
  const v = query.get(name);
  if (v === null) return byDefault;
  return !(v === '0' || v.toLowerCase() === 'false');
}

/** The kubelet path and query for a pod's exec, attach or port forward. */
function podStreamPath(pod: ReturnType<typeof podOf>, target: Extract<KubeletProxyTarget, { kind: 'pod' }>, query: URLSearchParams): string {
  const params = new URLSearchParams();
  const where = [target.namespace, target.pod];
  if (target.subresource === 'portforward') {
    const ports = query.getAll('ports').flatMap((p) => p.split(',')).filter(Boolean);
    if (ports.length > 0) params.set('port', ports.join(','));
  } else {
    where.push(containerOf(pod, target.pod, query.get('container')));
    const streams: [string, boolean][] = [
      ['input', flag(query, 'stdin', false)], ['output', flag(query, 'stdout', true)],
      ['error', flag(query, 'stderr', true)], ['tty', flag(query, 'tty', false)],
    ];
    for (const [name, on] of streams) if (on) params.append(name, '1');
    if (target.subresource === 'exec') for (const c of query.getAll('command')) params.append('command', c);
  }
  const qs = params.toString();
  const path = target.subresource === 'portforward' ? 'portForward' : target.subresource;
  return `/${path}/${where.map(encodeURIComponent).join('/')}${qs ? `?${qs}` : ''}`;
}

/** A plain (not upgraded) request through nodes/proxy: the kubelet's answer streams back as it is. */
function proxyPlain(req: IncomingMessage, body: string, res: ServerResponse, target: URL, identity: KubeletClientIdentity): Promise<void> {
  const headers = { ...req.headers, host: target.host };
  delete headers.authorization;
  return new Promise((resolve, reject) => {
    const upstream = request({
      hostname: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: req.method, headers,
      cert: identity.certPem, key: identity.keyPem, rejectUnauthorized: false, agent: false,
    });
    res.on('close', () => upstream.destroy());
    upstream.once('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.once('end', () => resolve());
      answer.once('error', () => resolve());
    });
    upstream.once('error', (err) => reject(new ApiError(statusBody(500, `error trying to reach service: ${err.message}`))));
    upstream.end(body);
  });
}

/**
 * The proxy's own failures (a kubelet it cannot dial, or that does not upgrade) as Go's API server
 * answers them: a Status object with the error's text (responsewriters.ErrorNegotiated of a plain
 * error: code 500, no reason), so kubectl says `Error from server: error dialing backend: …`.
 */
function refuseWithStatus(socket: Duplex, status: number, message: string): void {
  writeRawHttpAnswer(socket, status, 'application/json', Buffer.from(JSON.stringify(statusBody(status, message))));
}

/** Answers a request for a kubelet; throws ApiError before anything was sent. */
export async function proxyToKubelet(
  store: ObjectStore, identity: KubeletClientIdentity, target: KubeletProxyTarget, query: URLSearchParams,
  req: IncomingMessage, body: string, res: ServerResponse,
): Promise<void> {
  let nodeName: string;
  let path: string;
  if (target.kind === 'pod') {
    const pod = podOf(store, target.namespace, target.pod);
    path = podStreamPath(pod, target, query);
    const assigned = pod.spec?.nodeName;
    if (!assigned) throw apiErrors.badRequest(`pod ${target.pod} does not have a host assigned`);
    nodeName = assigned;
  } else {
    nodeName = target.node;
    const qs = query.toString();
    path = `${target.path}${qs ? `?${qs}` : ''}`;
  }
  const kubelet = kubeletAddress(store, nodeName, identity.dialHost);
  const url = new URL(`https://${kubelet.host}:${kubelet.port}${path}`);
  const connection = upgradedConnection(req);
  if (!connection) {
    if (target.kind === 'pod') throw apiErrors.badRequest('Upgrade request required');
    await proxyPlain(req, body, res, url, identity);
    return;
  }
  proxyStream(req, connection, url, {
    idleTimeoutMs: 0, tls: { cert: identity.certPem, key: identity.keyPem, rejectUnauthorized: false }, refuse: refuseWithStatus,
  });
}
