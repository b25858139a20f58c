/**
 * The ApiServer port over @kubernetes/client-node: one instance per Go client (main, events,
 * heartbeat), each with its own rate limiter and per-request timeout. Every call takes a token,
 * runs under the timeout on the injected clock, and maps failures through api-errors.ts.
 *
 * Differs from client-go: a timed-out request is abandoned, not cancelled on the socket (the
 * generated client takes no AbortSignal per call); `reopen()` builds a fresh KubeConfig and API
 * objects, so later requests do not reuse the old connections (client-node 2 already opens a new
 * undici agent per request for TLS clusters).
 */
import { KubeletError } from '../../domain/errors.js';
import type { Clock } from '../../ports/clock.js';
import type {
  EventApi, HeartbeatApi, KubeObject, LeaseApi, LeaseObject, NodeApi, NodeObject, NodeStatus, PodApi, PodList, WatchEventType, WatchHandle,
} from '../../ports/apiserver.js';
import { toApiError } from './api-errors.js';
import { CoordinationV1Api, CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions, Watch } from './client-node.js';
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

const strategicMerge = () => setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

// The generated client's parameter and return types are its model classes; the port speaks wire
// JSON. Bodies go in as wire JSON (its serializer passes strings through) and answers come back
// through toWire.
type Loose = never;

export class KubeApi implements NodeApi, LeaseApi, PodApi, EventApi, HeartbeatApi {
  private kc!: KubeConfig;
  private core!: CoreV1Api;
  private coordination!: CoordinationV1Api;

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
  }

  private async call<T>(what: string, fn: () => Promise<unknown>): Promise<T> {
    await this.opts.limiter.wait();
    try {
      return toWire<T>(await this.withTimeout(what, fn()));
    } catch (err) {
      throw toApiError(err, what);
    }
  }

  private withTimeout<T>(what: string, p: Promise<T>): Promise<T> {
    const ms = this.opts.timeoutMs;
    if (ms === null) return p;
    const { clock } = this.opts;
    return new Promise<T>((resolve, reject) => {
      const timer = clock.setTimeout(() => reject(new KubeletError('KLT_ERR_API_TIMEOUT', `${what}: no answer within ${ms}ms`, { retryable: true })), ms);
      p.then(
        (v) => { clock.clearTimeout(timer); resolve(v); },
        (e: unknown) => { clock.clearTimeout(timer); reject(e); },
      );
    });
  }

  // NodeApi
  getNode(name: string): Promise<NodeObject> {
    return this.call('get node', () => this.core.readNode({ name }));
  }
  createNode(node: NodeObject): Promise<NodeObject> {
    return this.call('create node', () => this.core.createNode({ body: node as Loose }));
  }
  patchNode(name: string, patch: Partial<NodeObject>): Promise<NodeObject> {
    return this.call('patch node', () => this.core.patchNode({ name, body: patch }, strategicMerge()));
  }
  patchNodeStatus(name: string, status: NodeStatus): Promise<NodeObject> {
    return this.call('patch node status', () => this.core.patchNodeStatus({ name, body: { status } }, strategicMerge()));
  }

  // LeaseApi
  getLease(namespace: string, name: string): Promise<LeaseObject> {
    return this.call('get lease', () => this.coordination.readNamespacedLease({ namespace, name }));
  }
  createLease(lease: LeaseObject): Promise<LeaseObject> {
    const namespace = lease.metadata.namespace ?? '';
    return this.call('create lease', () => this.coordination.createNamespacedLease({ namespace, body: lease as Loose }));
  }
  updateLease(lease: LeaseObject): Promise<LeaseObject> {
    const { namespace = '', name = '' } = lease.metadata;
    return this.call('update lease', () => this.coordination.replaceNamespacedLease({ namespace, name, body: lease as Loose }));
  }

  // PodApi
  async listPods(opts: { nodeName: string; resourceVersion?: string }): Promise<PodList> {
    const list = await this.call<{ metadata?: { resourceVersion?: string }; items?: KubeObject[] }>('list pods', () =>
      this.core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${opts.nodeName}`, ...(opts.resourceVersion ? { resourceVersion: opts.resourceVersion } : {}) }));
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
    return this.call('patch pod status', () => this.core.patchNamespacedPodStatus({ namespace, name, body: patch }, strategicMerge()));
  }
  getPod(namespace: string, name: string): Promise<KubeObject> {
    return this.call('get pod', () => this.core.readNamespacedPod({ namespace, name }));
  }
  createPod(namespace: string, pod: KubeObject): Promise<KubeObject> {
    return this.call('create pod', () => this.core.createNamespacedPod({ namespace, body: pod as Loose }));
  }
  async deletePod(namespace: string, name: string, opts: { gracePeriodSeconds?: number; uid?: string } = {}): Promise<void> {
    const body = { ...(opts.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: opts.gracePeriodSeconds }), ...(opts.uid ? { preconditions: { uid: opts.uid } } : {}) };
    await this.call('delete pod', () => this.core.deleteNamespacedPod({ namespace, name, body: body as Loose, ...(opts.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: opts.gracePeriodSeconds }) }));
  }

  // EventApi
  createEvent(namespace: string, event: KubeObject): Promise<KubeObject> {
    return this.call('create event', () => this.core.createNamespacedEvent({ namespace, body: event as Loose }));
  }
  patchEvent(namespace: string, name: string, patch: Record<string, unknown>): Promise<KubeObject> {
    return this.call('patch event', () => this.core.patchNamespacedEvent({ namespace, name, body: patch }, strategicMerge()));
  }
}
