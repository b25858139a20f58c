/**
 * `GET /api/v1/namespaces/{ns}/pods/{name}/log`: proxied to the pod's kubelet, as the API server's
 * pod log REST does (pkg/registry/core/pod/rest/log.go, the pod strategy's LogLocation).
 *
 * - The container: the query's `container`, or the pod's only container (kubelet-location.ts). An
 *   unknown pod is `pods "x" not found` (404); an unknown node `nodes "x" not found` (404).
 * - A pod not bound to a node answers 200 with an empty body, as Go's LocationStreamer does with
 *   no location.
 * - The kubelet (kubelet-location.ts) + Go's `/containerLogs/{ns}/{pod}/{container}` with the log
 *   options that were given (follow, previous, sinceSeconds, sinceTime, timestamps, tailLines,
 *   limitBytes).
 * - The API server's own client certificate authenticates it (Go: --kubelet-client-certificate);
 *   the kubelet's serving certificate is not verified, as Go does without
 *   --kubelet-certificate-authority.
 * - The body streams through as it comes (chunked, nothing held), so `follow` follows; the client
 *   going away closes the kubelet connection. A kubelet answer other than 2xx becomes a Status with
 *   the same code and the kubelet's text as message (Go's generic response checker); a kubelet that
 *   cannot be reached is a 500 InternalError naming the address.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request } from 'node:https';
import { ApiError, statusBody } from './status.js';
import { containerOf, kubeletAddress, podOf } from './kubelet-location.js';
import type { ObjectStore } from './store.js';

/** Who the API server is to kubelets, and where it dials them. */
export interface KubeletClientIdentity {
  certPem: string;
  keyPem: string;
  /** Dial this host for every kubelet instead of the node's address. */
  dialHost?: string;
}

const LOG_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/log$/;
/** v1.PodLogOptions that reach the kubelet (container goes into the path). */
const FORWARDED_OPTIONS = ['follow', 'previous', 'sinceSeconds', 'sinceTime', 'timestamps', 'tailLines', 'limitBytes'];
/** Go's response checker reads at most this much of a failed answer. */
const MAX_ERROR_BODY = 50 * 1024;

/** The namespace and pod of a pods/log path, or undefined for any other path. */
export function podLogPath(pathname: string): { namespace: string; pod: string } | undefined {
  const m = LOG_PATH.exec(pathname);
  return m ? { namespace: decodeURIComponent(m[1]!), pod: decodeURIComponent(m[2]!) } : undefined;
}

/** Where the pod's log is: host, port and path on its kubelet; null for a pod on no node yet. */
export function kubeletLogLocation(
  store: ObjectStore, namespace: string, podName: string, query: URLSearchParams, dialHost?: string,
): { host: string; port: number; path: string } | null {
  const pod = podOf(store, namespace, podName);
  const container = containerOf(pod, podName, query.get('container'));
  const nodeName = pod.spec?.nodeName;
  if (!nodeName) return null;
  const kubelet = kubeletAddress(store, nodeName, dialHost);
  const params = new URLSearchParams();
  for (const name of FORWARDED_OPTIONS) {
    const value = query.get(name);
    if (value !== null) params.set(name, value);
  }
  const qs = params.toString();
  const path = `/containerLogs/${[namespace, podName, container].map(encodeURIComponent).join('/')}${qs ? `?${qs}` : ''}`;
  return { ...kubelet, path };
}

/** The kubelet's failed answer as the Status Go's response checker makes of it. */
async function statusFromKubelet(upstream: IncomingMessage, podName: string): Promise<ApiError> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of upstream as AsyncIterable<Buffer>) {
    if (size < MAX_ERROR_BODY) chunks.push(chunk);
    size += chunk.length;
  }
  const text = Buffer.concat(chunks).subarray(0, MAX_ERROR_BODY).toString('utf8').trim();
  const code = upstream.statusCode ?? 500;
  return new ApiError(statusBody(code, text || `the server responded with the status code ${code} but did not return more information`, undefined, { name: podName, kind: 'pods/log' }));
}

/** Answers a pods/log request; throws ApiError before anything was sent. */
export async function proxyPodLog(
  store: ObjectStore, identity: KubeletClientIdentity, target: { namespace: string; pod: string }, query: URLSearchParams,
  res: ServerResponse,
): Promise<void> {
  const where = kubeletLogLocation(store, target.namespace, target.pod, query, identity.dialHost);
  if (where === null) {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end();
    return;
  }
  const upstreamReq = request({
    host: where.host, port: where.port, path: where.path, method: 'GET',
    cert: identity.certPem, key: identity.keyPem, rejectUnauthorized: false,
  });
  // The client going away ends the kubelet's stream too (a follow would otherwise run on).
  res.on('close', () => upstreamReq.destroy());
  const upstream = await new Promise<IncomingMessage>((resolve, reject) => {
    upstreamReq.once('response', resolve);
    upstreamReq.once('error', (err) => reject(new ApiError(statusBody(500,
      `Get "https://${where.host}:${where.port}${where.path}": ${err.message}`))));
    upstreamReq.end();
  });
  const code = upstream.statusCode ?? 500;
  if (code < 200 || code >= 300) throw await statusFromKubelet(upstream, target.pod);
  res.writeHead(code, { 'Content-Type': String(upstream.headers['content-type'] ?? 'text/plain') });
  res.flushHeaders();
  upstream.pipe(res);
  await new Promise<void>((resolve) => {
    upstream.once('end', resolve);
    upstream.once('error', () => resolve());
    upstream.once('close', resolve);
  });
  // A kubelet connection cut mid-stream ends the response (pipe would leave it open), as Go's
  // handler returns when its copy fails.
  if (!res.writableEnded) res.end();
}

