/**
 * The ApiServer port over @kubernetes/client-node: one instance per Go client (main, events,
 * heartbeat), each with its own rate limiter and per-request timeout. Every call takes a token,
 * runs under the timeout on the injected clock, and maps failures through api-errors.ts.
 *
 * A timed-out request is aborted (its AbortSignal is set by a per-call middleware), as Go's
 * http.Client timeout cancels it. `reopen()` builds a fresh KubeConfig and API objects, so later
 * requests do not reuse the old connections (client-node 2 already opens a new undici agent per
 * request for TLS clusters).
 */
import { KubeletError } from '../../domain/errors.js';
import type { Clock } from '../../ports/clock.js';
import type {
  ReviewApi,
  EventApi, HeartbeatApi, KubeObject, LeaseApi, LeaseObject, NodeApi, NodeMetadataPatch, NodeObject, NodeStatus, PodApi, PodList, WatchEventType, WatchHandle,
} from '../../ports/apiserver.js';
import { toApiError } from './api-errors.js';
import { AuthenticationV1Api, AuthorizationV1Api, CoordinationV1Api, CoreV1Api, KubeConfig, of, PatchStrategy, setHeaderOptions, Watch } from './client-node.js';
import type { RateLimiter } from './rate-limiter.js';
import { toWire } from './wire.js';

export interface KubeApiOptions {
  /** Loads the kubeconfig afresh (called at start and on every reopen). */
  loadConfig: () => KubeConfig;
  limiter: RateLimiter;
  /** Per-request timeout; null: none (Go's main client has none either, watches aside). */
  timeoutMs: number | null;
  clock: Clock;
}

/** Per-call options of the generated client (its middleware chain). */
type CallOptions = NonNullable<Parameters<typeof setHeaderOptions>[2]>;
type Middleware = NonNullable<CallOptions['middleware']>[number];

const strategicMerge = (o: CallOptions) => setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch, o);

/**
 * NodeStatus.addresses is declared patchStrategy=merge on `type`, which would fold a dual-stack
 * pair of InternalIPs into one and keep stale addresses; like Go's
 * fixupPatchForNodeStatusAddresses, the list is sent with a `$patch: replace` directive.
 */
export function nodeStatusPatch(status: NodeStatus): { status: Record<string, unknown> } {
  if (status.addresses === undefined) return { status };
  return { status: { ...status, addresses: [{ $patch: 'replace' }, ...status.addresses] } };
}

/** Puts an AbortSignal on the request, so a timeout cancels it on the socket. */
function withSignal(signal: AbortSignal): CallOptions {
  const middleware: Middleware = {
    pre: (request) => {
      request.setSignal(signal);
      return of(request);
    },
    post: (response) => of(response),
  };
  return { middleware: [middleware], middlewareMergeStrategy: 'append' };
}

// The generated client's parameter and return types are its model classes; the port speaks wire
// JSON. Bodies go in as wire JSON (its serializer passes strings through) and answers come back
// through toWire.
type Loose = never;

export class KubeApi implements NodeApi, LeaseApi, PodApi, EventApi, HeartbeatApi, ReviewApi {
  private kc!: KubeConfig;
  private core!: CoreV1Api;
  private coordination!: CoordinationV1Api;
  private authn!: AuthenticationV1Api;
  private authz!: AuthorizationV1Api;

  constructor(private readonly opts: KubeApiOptions) {
    this.open();
  }

  get server(): string {
    return this.kc.getCurrentCluster()?.server ?? '';
  }

  reopen(): void {
    this.open();
  }

  private open(): void {
    try {
      this.kc = this.opts.loadConfig();
    } catch (err) {
      throw new KubeletError('KLT_ERR_API_CONFIG', `invalid kubeconfig: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    if (!this.kc.getCurrentCluster()) throw new KubeletError('KLT_ERR_API_CONFIG', 'invalid kubeconfig: no current cluster');
    this.core = this.kc.makeApiClient(CoreV1Api);
    this.coordination = this.kc.makeApiClient(CoordinationV1Api);
    this.authn = this.kc.makeApiClient(AuthenticationV1Api);
    this.authz = this.kc.makeApiClient(AuthorizationV1Api);
  }

  // ReviewApi (the kubelet server's Webhook authentication and authorization)
  async reviewToken(token: string): ReturnType<ReviewApi['reviewToken']> {
    const review = await this.call<{ status?: { authenticated?: boolean; user?: { username: string; uid?: string; groups?: string[] }; error?: string } }>(
      'create tokenreview', (o) => this.authn.createTokenReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } } as Loose }, o));
    const st = review.status ?? {};
    return { authenticated: st.authenticated === true, ...(st.user ? { user: st.user } : {}), ...(st.error ? { error: st.error } : {}) };
  }
  async reviewAccess(spec: Parameters<ReviewApi['reviewAccess']>[0]): ReturnType<ReviewApi['reviewAccess']> {
    const review = await this.call<{ status?: { allowed?: boolean; reason?: string } }>('create subjectaccessreview', (o) =>
      this.authz.createSubjectAccessReview({ body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec } as Loose }, o));
    return { allowed: review.status?.allowed === true, ...(review.status?.reason ? { reason: review.status.reason } : {}) };
  }

  private async call<T>(what: string, fn: (o: CallOptions) => Promise<unknown>): Promise<T> {
    await this.opts.limiter.wait();
    const ms = this.opts.timeoutMs;
    const controller = new AbortController();
    const { clock } = this.opts;
    const timer = ms === null ? undefined : clock.setTimeout(() => controller.abort(), ms);
    try {
      return toWire<T>(await fn(withSignal(controller.signal)));
    } catch (err) {
      if (controller.signal.aborted) throw new KubeletError('KLT_ERR_API_TIMEOUT', `${what}: no answer within ${ms}ms`, { cause: err, retryable: true });
      throw toApiError(err, what);
    } finally {
      if (timer !== undefined) clock.clearTimeout(timer);
    }
  }

  // NodeApi
  getNode(name: string): Promise<NodeObject> {
    return this.call('get node', (o) => this.core.readNode({ name }, o));
  }
  createNode(node: NodeObject): Promise<NodeObject> {
    return this.call('create node', (o) => this.core.createNode({ body: node as Loose }, o));
  }
  patchNode(name: string, patch: NodeMetadataPatch): Promise<NodeObject> {
    return this.call('patch node', (o) => this.core.patchNode({ name, body: patch }, strategicMerge(o)));
  }
  patchNodeStatus(name: string, status: NodeStatus): Promise<NodeObject> {
    return this.call('patch node status', (o) => this.core.patchNodeStatus({ name, body: nodeStatusPatch(status) }, strategicMerge(o)));
  }

  // LeaseApi
  getLease(namespace: string, name: string): Promise<LeaseObject> {
    return this.call('get lease', (o) => this.coordination.readNamespacedLease({ namespace, name }, o));
  }
  createLease(lease: LeaseObject): Promise<LeaseObject> {
    const namespace = lease.metadata.namespace ?? '';
    return this.call('create lease', (o) => this.coordination.createNamespacedLease({ namespace, body: lease as Loose }, o));
  }
  updateLease(lease: LeaseObject): Promise<LeaseObject> {
    const { namespace = '', name = '' } = lease.metadata;
    return this.call('update lease', (o) => this.coordination.replaceNamespacedLease({ namespace, name, body: lease as Loose }, o));
  }

  // PodApi
  async listPods(opts: { nodeName: string; resourceVersion?: string }): Promise<PodList> {
    const list = await this.call<{ metadata?: { resourceVersion?: string }; items?: KubeObject[] }>('list pods', (o) =>
      this.core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${opts.nodeName}`, ...(opts.resourceVersion ? { resourceVersion: opts.resourceVersion } : {}) }, o));
    return { resourceVersion: list.metadata?.resourceVersion ?? '', items: list.items ?? [] };
  }
  async watchPods(opts: { nodeName: string; resourceVersion: string; onEvent: (type: WatchEventType, object: KubeObject) => void; onDone: (err: unknown) => void }): Promise<WatchHandle> {
    await this.opts.limiter.wait();
    let stopped = false;
    const watch = new Watch(this.kc);
    const controller = await watch
      .watch('/api/v1/pods', { fieldSelector: `spec.nodeName=${opts.nodeName}`, resourceVersion: opts.resourceVersion, allowWatchBookmarks: true },
        (type: string, obj: unknown) => {
          if (stopped) return;
          if (type === 'ERROR') {
            // A Status object inside the stream: 410 Gone when the resourceVersion is too old.
            const status = obj as { code?: number; reason?: string; message?: string };
            stopped = true;
            opts.onDone(toApiError({ code: status.code ?? 500, body: status }, 'watch pods'));
            return;
          }
          opts.onEvent(type as WatchEventType, obj as KubeObject);
        },
        (err: unknown) => {
          if (stopped) return;
          stopped = true;
          opts.onDone(err === null || err === undefined ? null : toApiError(err, 'watch pods'));
        })
      .catch((err: unknown) => { throw toApiError(err, 'watch pods'); });
    return { stop: () => { stopped = true; controller.abort(); } };
  }
  patchPodStatus(namespace: string, name: string, patch: Record<string, unknown>): Promise<KubeObject> {
    return this.call('patch pod status', (o) => this.core.patchNamespacedPodStatus({ namespace, name, body: patch }, strategicMerge(o)));
  }
  getPod(namespace: string, name: string): Promise<KubeObject> {
    return this.call('get pod', (o) => this.core.readNamespacedPod({ namespace, name }, o));
  }
  createPod(namespace: string, pod: KubeObject): Promise<KubeObject> {
    return this.call('create pod', (o) => this.core.createNamespacedPod({ namespace, body: pod as Loose }, o));
  }
  async deletePod(namespace: string, name: string, opts: { gracePeriodSeconds?: number; uid?: string } = {}): Promise<void> {
    const body = { ...(opts.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: opts.gracePeriodSeconds }), ...(opts.uid ? { preconditions: { uid: opts.uid } } : {}) };
    await this.call('delete pod', (o) => this.core.deleteNamespacedPod({ namespace, name, body: body as Loose, ...(opts.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: opts.gracePeriodSeconds }) }, o));
  }

  // EventApi
  createEvent(namespace: string, event: KubeObject): Promise<KubeObject> {
    return this.call('create event', (o) => this.core.createNamespacedEvent({ namespace, body: event as Loose }, o));
  }
  patchEvent(namespace: string, name: string, patch: Record<string, unknown>): Promise<KubeObject> {
    return this.call('patch event', (o) => this.core.patchNamespacedEvent({ namespace, name, body: patch }, strategicMerge(o)));
  }
}
