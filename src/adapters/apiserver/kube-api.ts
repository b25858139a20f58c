/**
 * The ApiServer port over the kubelet's own REST client (rest-client.ts): one instance per Go
 * client (main, events, heartbeat), each with its own rate limiter, per-request timeout and
 * connections. Every call takes a token, runs under the timeout on the injected clock, and maps
 * failures through api-errors.ts. Bodies and answers are wire JSON, as the domain speaks it.
 *
 * A timed-out request is aborted (its stream reset, or on HTTP/1.1 its socket closed), as Go's
 * http.Client timeout cancels it.
 * `reopen()` reads the kubeconfig afresh and drops the old connections (Go's closeAllConns).
 */
import type { ResourceClaim } from '../../domain/dra/resource-claim.js';
import { KubeletError } from '../../domain/errors.js';
import type { Clock } from '../../ports/clock.js';
import type {
  ReviewApi, ClaimApi,
  EventApi, HeartbeatApi, KubeObject, KubeObjectList, LeaseApi, LeaseObject, NodeApi, NodeMetadataPatch, NodeObject, NodeStatus, OwnNodeApi, PodApi, PodList, RuntimeClassApi, ServiceApi, WatchEventType, WatchHandle,
  TokenRequestAnswer, TokenRequestBody, VolumeApi, VolumeObject, VolumeObjectList, VolumeObjectResource,
} from '../../ports/apiserver.js';
import type { CsiNodeObject } from '../../domain/csi/csi-node.js';
import type { CsiNodeApi } from '../../ports/csi-node-api.js';
import type { CsiObjectApi } from '../../ports/csi-objects.js';
import type { VolumeAttachmentObject } from '../../domain/csi/attachment.js';
import type { CsiDriverSpec } from '../../domain/csi/csi-driver.js';
import { toApiError } from './api-errors.js';
import type { Kubeconfig } from './kubeconfig-file.js';
import type { RateLimiter } from './rate-limiter.js';
import { RestClient, type RequestOptions } from './rest-client.js';
import { readWatchEvents } from './watch-stream.js';

export interface KubeApiOptions {
  /** Reads the kubeconfig afresh (called at start and on every reopen). */
  loadConfig: () => Kubeconfig;
  limiter: RateLimiter;
  /** Per-request timeout; null: none (Go's main client has none either, watches aside). */
  timeoutMs: number | null;
  clock: Clock;
  userAgent: string;
}

const STRATEGIC_MERGE = 'application/strategic-merge-patch+json';
const seg = encodeURIComponent;

/**
 * NodeStatus.addresses is declared patchStrategy=merge on `type`, which would fold a dual-stack
 * pair of InternalIPs into one and keep stale addresses; like Go's
 * fixupPatchForNodeStatusAddresses, the list is sent with a `$patch: replace` directive.
 */
export function nodeStatusPatch(status: NodeStatus): { status: Record<string, unknown> } {
  if (status.addresses === undefined) return { status };
  return { status: { ...status, addresses: [{ $patch: 'replace' }, ...status.addresses] } };
}

export class KubeApi implements NodeApi, LeaseApi, PodApi, EventApi, HeartbeatApi, ReviewApi, VolumeApi, ClaimApi, ServiceApi, OwnNodeApi, RuntimeClassApi, CsiNodeApi, CsiObjectApi {
  private rest!: RestClient;

  constructor(private readonly opts: KubeApiOptions) {
    this.open();
  }

  get server(): string {
    return this.rest.server;
  }

  /** Drops this client's connections (at shutdown). */
  close(): void {
    this.rest.close();
  }

  /** Reads the kubeconfig again and drops the old connections; on an unreadable kubeconfig, keeps the current client and throws. */
  reopen(): void {
    const old = this.rest;
    this.open();
    old.close();
  }

  /** loadConfig throws KLT_ERR_API_CONFIG naming what is wrong (kubeconfig-file.ts). */
  private open(): void {
    this.rest = new RestClient(this.opts.loadConfig(), this.opts.clock, this.opts.userAgent);
  }

  // ReviewApi (the kubelet server's Webhook authentication and authorization)
  async reviewToken(token: string): ReturnType<ReviewApi['reviewToken']> {
    const review = await this.call<{ status?: { authenticated?: boolean; user?: { username: string; uid?: string; groups?: string[] }; error?: string } }>(
      'create tokenreview', 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } } });
    const st = review.status ?? {};
    return { authenticated: st.authenticated === true, ...(st.user ? { user: st.user } : {}), ...(st.error ? { error: st.error } : {}) };
  }
  async reviewAccess(spec: Parameters<ReviewApi['reviewAccess']>[0]): ReturnType<ReviewApi['reviewAccess']> {
    const review = await this.call<{ status?: { allowed?: boolean; reason?: string } }>(
      'create subjectaccessreview', 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec } });
    return { allowed: review.status?.allowed === true, ...(review.status?.reason ? { reason: review.status.reason } : {}) };
  }

  private async call<T>(what: string, method: string, path: string, req: Omit<RequestOptions, 'signal'> = {}): Promise<T> {
    await this.opts.limiter.wait();
    const ms = this.opts.timeoutMs;
    const controller = new AbortController();
    const { clock } = this.opts;
    const timer = ms === null ? undefined : clock.setTimeout(() => controller.abort(), ms);
    try {
      return await this.rest.request<T>(method, path, { ...req, signal: controller.signal });
    } catch (err) {
      if (controller.signal.aborted) throw new KubeletError('KLT_ERR_API_TIMEOUT', `${what}: no answer within ${ms}ms`, { cause: err, retryable: true });
      throw toApiError(err, what);
    } finally {
      if (timer !== undefined) clock.clearTimeout(timer);
    }
  }

  // NodeApi
  getNode(name: string): Promise<NodeObject> {
    return this.call('get node', 'GET', `/api/v1/nodes/${seg(name)}`);
  }
  createNode(node: NodeObject): Promise<NodeObject> {
    return this.call('create node', 'POST', '/api/v1/nodes', { body: node });
  }
  patchNode(name: string, patch: NodeMetadataPatch): Promise<NodeObject> {
    return this.call('patch node', 'PATCH', `/api/v1/nodes/${seg(name)}`, { body: patch, contentType: STRATEGIC_MERGE });
  }
  patchNodeStatus(name: string, status: NodeStatus): Promise<NodeObject> {
    return this.call('patch node status', 'PATCH', `/api/v1/nodes/${seg(name)}/status`, { body: nodeStatusPatch(status), contentType: STRATEGIC_MERGE });
  }

  // CsiNodeApi (the CSI plugin manager's nodeinfomanager)
  getCsiNode(name: string): Promise<CsiNodeObject> {
    return this.call('get csinode', 'GET', `/apis/storage.k8s.io/v1/csinodes/${seg(name)}`);
  }
  createCsiNode(csiNode: CsiNodeObject): Promise<CsiNodeObject> {
    return this.call('create csinode', 'POST', '/apis/storage.k8s.io/v1/csinodes', { body: csiNode });
  }
  updateCsiNode(csiNode: CsiNodeObject): Promise<CsiNodeObject> {
    return this.call('update csinode', 'PUT', `/apis/storage.k8s.io/v1/csinodes/${seg(csiNode.metadata.name ?? '')}`, { body: csiNode });
  }

  // OwnNodeApi (the node informer)
  async listOwnNode(name: string): Promise<KubeObjectList> {
    const list = await this.call<{ metadata?: { resourceVersion?: string }; items?: KubeObject[] }>('list node', 'GET', '/api/v1/nodes', { query: { fieldSelector: `metadata.name=${name}` } });
    return { resourceVersion: list.metadata?.resourceVersion ?? '', items: list.items ?? [] };
  }
  watchOwnNode(opts: Parameters<OwnNodeApi['watchOwnNode']>[0]): Promise<WatchHandle> {
    return this.watch('watch node', '/api/v1/nodes', { fieldSelector: `metadata.name=${opts.name}`, resourceVersion: opts.resourceVersion }, opts);
  }

  // LeaseApi
  getLease(namespace: string, name: string): Promise<LeaseObject> {
    return this.call('get lease', 'GET', `/apis/coordination.k8s.io/v1/namespaces/${seg(namespace)}/leases/${seg(name)}`);
  }
  createLease(lease: LeaseObject): Promise<LeaseObject> {
    const namespace = lease.metadata.namespace ?? '';
    return this.call('create lease', 'POST', `/apis/coordination.k8s.io/v1/namespaces/${seg(namespace)}/leases`, { body: lease });
  }
  updateLease(lease: LeaseObject): Promise<LeaseObject> {
    const { namespace = '', name = '' } = lease.metadata;
    return this.call('update lease', 'PUT', `/apis/coordination.k8s.io/v1/namespaces/${seg(namespace)}/leases/${seg(name)}`, { body: lease });
  }

  // PodApi
  async listPods(opts: { nodeName: string; resourceVersion?: string }): Promise<PodList> {
    const list = await this.call<{ metadata?: { resourceVersion?: string }; items?: KubeObject[] }>('list pods', 'GET', '/api/v1/pods', {
      query: { fieldSelector: `spec.nodeName=${opts.nodeName}`, resourceVersion: opts.resourceVersion || undefined },
    });
    return { resourceVersion: list.metadata?.resourceVersion ?? '', items: list.items ?? [] };
  }
  watchPods(opts: { nodeName: string; resourceVersion: string; onEvent: (type: WatchEventType, object: KubeObject) => void; onDone: (err: unknown) => void }): Promise<WatchHandle> {
    return this.watch('watch pods', '/api/v1/pods', { fieldSelector: `spec.nodeName=${opts.nodeName}`, resourceVersion: opts.resourceVersion }, opts);
  }

  /** A watch with bookmarks: events until stopped or ended; an ERROR event (410 Gone among them) ends it through onDone. */
  private async watch<T>(what: string, path: string, query: RequestOptions['query'], opts: { onEvent: (type: WatchEventType, object: T) => void; onDone: (err: unknown) => void }): Promise<WatchHandle> {
    await this.opts.limiter.wait();
    let stopped = false;
    const finish = (err: unknown) => {
      if (stopped) return;
      stopped = true;
      opts.onDone(err);
    };
    const answer = await this.rest.stream(path, { query: { watch: true, ...query, allowWatchBookmarks: true } }).catch((err: unknown) => {
      throw toApiError(err, what);
    });
    readWatchEvents(answer, {
      onEvent: (type, object) => {
        if (stopped) return;
        if (type === 'ERROR') {
          // A Status object inside the stream: 410 Gone when the resourceVersion is too old.
          const status = object as { code?: number };
          finish(toApiError({ code: status.code ?? 500, body: object }, what));
          answer.destroy();
          return;
        }
        opts.onEvent(type as WatchEventType, object as T);
      },
      onEnd: (err) => finish(err === null ? null : toApiError(err, what)),
    });
    // Closing the answer resets its stream (on HTTP/1.1, closes its connection): the server sees the watch end.
    return { stop: () => { stopped = true; answer.destroy(); } };
  }
  patchPodStatus(namespace: string, name: string, patch: Record<string, unknown>): Promise<KubeObject> {
    return this.call('patch pod status', 'PATCH', `/api/v1/namespaces/${seg(namespace)}/pods/${seg(name)}/status`, { body: patch, contentType: STRATEGIC_MERGE });
  }
  getPod(namespace: string, name: string): Promise<KubeObject> {
    return this.call('get pod', 'GET', `/api/v1/namespaces/${seg(namespace)}/pods/${seg(name)}`);
  }
  createPod(namespace: string, pod: KubeObject): Promise<KubeObject> {
    return this.call('create pod', 'POST', `/api/v1/namespaces/${seg(namespace)}/pods`, { body: pod });
  }
  async deletePod(namespace: string, name: string, opts: { gracePeriodSeconds?: number; uid?: string } = {}): Promise<void> {
    const body = { apiVersion: 'v1', kind: 'DeleteOptions', ...(opts.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: opts.gracePeriodSeconds }), ...(opts.uid ? { preconditions: { uid: opts.uid } } : {}) };
    await this.call('delete pod', 'DELETE', `/api/v1/namespaces/${seg(namespace)}/pods/${seg(name)}`, { body, query: { gracePeriodSeconds: opts.gracePeriodSeconds } });
  }

  // ServiceApi (the Service informer). No field selector: spec.clusterIP=None-excluding selectors
  // are unknown to API servers before 1.30, and a headless Service is skipped when read anyway.
  async listServices(): Promise<KubeObjectList> {
    const list = await this.call<{ metadata?: { resourceVersion?: string }; items?: KubeObject[] }>('list services', 'GET', '/api/v1/services');
    return { resourceVersion: list.metadata?.resourceVersion ?? '', items: list.items ?? [] };
  }
  watchServices(opts: Parameters<ServiceApi['watchServices']>[0]): Promise<WatchHandle> {
    return this.watch('watch services', '/api/v1/services', { resourceVersion: opts.resourceVersion }, opts);
  }

  // RuntimeClassApi (the RuntimeClass informer)
  async listRuntimeClasses(): Promise<KubeObjectList> {
    const list = await this.call<{ metadata?: { resourceVersion?: string }; items?: KubeObject[] }>('list runtimeclasses', 'GET', '/apis/node.k8s.io/v1/runtimeclasses');
    return { resourceVersion: list.metadata?.resourceVersion ?? '', items: list.items ?? [] };
  }
  watchRuntimeClasses(opts: Parameters<RuntimeClassApi['watchRuntimeClasses']>[0]): Promise<WatchHandle> {
    return this.watch('watch runtimeclasses', '/apis/node.k8s.io/v1/runtimeclasses', { resourceVersion: opts.resourceVersion }, opts);
  }

  // CsiObjectApi (the CSI volume plugin)
  async getCsiDriver(name: string): Promise<CsiDriverSpec | undefined> {
    const driver = await this.getOrUndefined<{ spec?: CsiDriverSpec }>('get csidrivers', `/apis/storage.k8s.io/v1/csidrivers/${seg(name)}`);
    return driver === undefined ? undefined : driver.spec ?? {};
  }
  getVolumeAttachment(name: string): Promise<VolumeAttachmentObject | undefined> {
    return this.getOrUndefined<VolumeAttachmentObject>('get volumeattachments', `/apis/storage.k8s.io/v1/volumeattachments/${seg(name)}`);
  }
  getSecret(namespace: string, name: string): Promise<VolumeObject | undefined> {
    return this.getObject('secrets', namespace, name);
  }
  private async getOrUndefined<T>(what: string, path: string): Promise<T | undefined> {
    try {
      return await this.call<T>(what, 'GET', path);
    } catch (err) {
      if (err instanceof KubeletError && err.code === 'KLT_ERR_API_NOT_FOUND') return undefined;
      throw err;
    }
  }

  // VolumeApi (the ConfigMap, Secret and token managers)
  async getObject(resource: VolumeObjectResource, namespace: string, name: string, opts: { resourceVersion?: string } = {}): Promise<VolumeObject | undefined> {
    try {
      return await this.call<VolumeObject>(`get ${resource}`, 'GET', `/api/v1/namespaces/${seg(namespace)}/${resource}/${seg(name)}`, { query: { resourceVersion: opts.resourceVersion } });
    } catch (err) {
      if (err instanceof KubeletError && err.code === 'KLT_ERR_API_NOT_FOUND') return undefined;
      throw err;
    }
  }
  async listObject(resource: VolumeObjectResource, namespace: string, name: string): Promise<VolumeObjectList> {
    const list = await this.call<{ metadata?: { resourceVersion?: string }; items?: VolumeObject[] }>(`list ${resource}`, 'GET', `/api/v1/namespaces/${seg(namespace)}/${resource}`, {
      query: { fieldSelector: `metadata.name=${name}` },
    });
    return { resourceVersion: list.metadata?.resourceVersion ?? '', items: list.items ?? [] };
  }
  watchObject(resource: VolumeObjectResource, opts: Parameters<VolumeApi['watchObject']>[1]): Promise<WatchHandle> {
    return this.watch(`watch ${resource}`, `/api/v1/namespaces/${seg(opts.namespace)}/${resource}`, { fieldSelector: `metadata.name=${opts.name}`, resourceVersion: opts.resourceVersion }, opts);
  }
  async createServiceAccountToken(namespace: string, serviceAccountName: string, spec: TokenRequestBody): Promise<TokenRequestAnswer> {
    const answer = await this.call<{ spec?: Partial<TokenRequestBody>; status?: { token?: unknown; expirationTimestamp?: unknown } }>(
      'create token', 'POST', `/api/v1/namespaces/${seg(namespace)}/serviceaccounts/${seg(serviceAccountName)}/token`,
      { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec } });
    const { token, expirationTimestamp } = answer.status ?? {};
    // The message names what is missing, never the answer itself: it holds a credential.
    if (typeof token !== 'string' || token === '' || typeof expirationTimestamp !== 'string') {
      throw new KubeletError('KLT_ERR_API_FAILED', 'create token: the answer has no status.token or status.expirationTimestamp');
    }
    return { spec: answer.spec ?? {}, status: { token, expirationTimestamp } };
  }

  // ClaimApi (the volume plugins' claims and PVs)
  getPersistentVolumeClaim(namespace: string, name: string): Promise<KubeObject | undefined> {
    return this.orUndefined(this.call<KubeObject>('get persistentvolumeclaim', 'GET', `/api/v1/namespaces/${seg(namespace)}/persistentvolumeclaims/${seg(name)}`));
  }
  getPersistentVolume(name: string): Promise<KubeObject | undefined> {
    return this.orUndefined(this.call<KubeObject>('get persistentvolume', 'GET', `/api/v1/persistentvolumes/${seg(name)}`));
  }
  getResourceClaim(namespace: string, name: string): Promise<ResourceClaim> {
    return this.call<ResourceClaim>('get resourceclaim', 'GET', `/apis/resource.k8s.io/v1/namespaces/${seg(namespace)}/resourceclaims/${seg(name)}`);
  }
  async deleteResourceSlices(fieldSelector: string): Promise<void> {
    await this.call('delete resourceslices', 'DELETE', '/apis/resource.k8s.io/v1/resourceslices', { query: { fieldSelector } });
  }
  private async orUndefined<T>(answer: Promise<T>): Promise<T | undefined> {
    try {
      return await answer;
    } catch (err) {
      if (err instanceof KubeletError && err.code === 'KLT_ERR_API_NOT_FOUND') return undefined;
      throw err;
    }
  }

  // EventApi
  createEvent(namespace: string, event: KubeObject): Promise<KubeObject> {
    return this.call('create event', 'POST', `/api/v1/namespaces/${seg(namespace)}/events`, { body: event });
  }
  patchEvent(namespace: string, name: string, patch: Record<string, unknown>): Promise<KubeObject> {
    return this.call('patch event', 'PATCH', `/api/v1/namespaces/${seg(namespace)}/events/${seg(name)}`, { body: patch, contentType: STRATEGIC_MERGE });
  }
}
