/**
 * An in-memory VolumeApi: holds ConfigMaps and Secrets, records every call, lets a test queue a
 * failure for the next call of a method, push changes to open watches (as the API server would)
 * and break a watch. Token requests answer `token-<n>` expiring expirationSeconds after the clock.
 */
import type { Clock } from '../../../src/ports/clock.js';
import type {
  TokenRequestAnswer, TokenRequestBody, VolumeApi, VolumeObject, VolumeObjectList, VolumeObjectResource, WatchEventType, WatchHandle,
} from '../../../src/ports/apiserver.js';

export interface FakeWatch {
  resource: VolumeObjectResource;
  namespace: string;
  name: string;
  resourceVersion: string;
  stopped: boolean;
  onEvent: (type: WatchEventType, object: VolumeObject) => void;
  onDone: (err: unknown) => void;
}

type Method = 'getObject' | 'listObject' | 'watchObject' | 'createServiceAccountToken';

export class FakeVolumeApi implements VolumeApi {
  readonly calls: string[] = [];
  readonly watches: FakeWatch[] = [];
  readonly tokenRequests: { namespace: string; serviceAccountName: string; spec: TokenRequestBody }[] = [];
  private readonly objects = new Map<string, VolumeObject>();
  private readonly failures = new Map<Method, Error[]>();
  private rv = 100;
  private tokens = 0;
  /** Token answers: the server may grant another expirationSeconds than asked. */
  grantSeconds?: number;

  constructor(private readonly clock: Pick<Clock, 'now'>) {}

  /** The next call of `method` rejects with `err` (queued: one failure per call). */
  failNext(method: Method, err: Error): void {
    const queue = this.failures.get(method) ?? [];
    queue.push(err);
    this.failures.set(method, queue);
  }

  /** Creates or replaces an object and tells the open watches on it. */
  put(resource: VolumeObjectResource, object: Omit<VolumeObject, 'metadata'> & { metadata: { namespace: string; name: string } }): VolumeObject {
    const key = `${resource}/${object.metadata.namespace}/${object.metadata.name}`;
    const existed = this.objects.has(key);
    const stored: VolumeObject = { ...object, metadata: { ...object.metadata, resourceVersion: String(++this.rv) } };
    this.objects.set(key, stored);
    this.tell(resource, stored, existed ? 'MODIFIED' : 'ADDED');
    return stored;
  }

  delete(resource: VolumeObjectResource, namespace: string, name: string): void {
    const key = `${resource}/${namespace}/${name}`;
    const held = this.objects.get(key);
    if (!held) return;
    this.objects.delete(key);
    this.tell(resource, { ...held, metadata: { ...held.metadata, resourceVersion: String(++this.rv) } }, 'DELETED');
  }

  /** The open (not stopped) watches on one object. */
  openWatches(resource: VolumeObjectResource, namespace: string, name: string): FakeWatch[] {
    return this.watches.filter((w) => !w.stopped && w.resource === resource && w.namespace === namespace && w.name === name);
  }

  /** Ends a watch as a broken connection (or a 410) would. */
  breakWatch(watch: FakeWatch, err: Error): void {
    watch.stopped = true;
    watch.onDone(err);
  }

  private tell(resource: VolumeObjectResource, object: VolumeObject, type: WatchEventType): void {
    const { namespace = '', name = '' } = object.metadata;
    for (const w of this.openWatches(resource, namespace, name)) w.onEvent(type, structuredClone(object));
  }

  private fail(method: Method): void {
    const err = this.failures.get(method)?.shift();
    if (err) throw err;
  }

  async getObject(resource: VolumeObjectResource, namespace: string, name: string, opts: { resourceVersion?: string } = {}): Promise<VolumeObject | undefined> {
    this.calls.push(`get ${resource} ${namespace}/${name}${opts.resourceVersion === undefined ? '' : ` rv=${opts.resourceVersion}`}`);
    this.fail('getObject');
    const object = this.objects.get(`${resource}/${namespace}/${name}`);
    return object && structuredClone(object);
  }

  async listObject(resource: VolumeObjectResource, namespace: string, name: string): Promise<VolumeObjectList> {
    this.calls.push(`list ${resource} ${namespace}/${name}`);
    this.fail('listObject');
    const object = this.objects.get(`${resource}/${namespace}/${name}`);
    return { resourceVersion: String(this.rv), items: object ? [structuredClone(object)] : [] };
  }

  async watchObject(resource: VolumeObjectResource, opts: Parameters<VolumeApi['watchObject']>[1]): Promise<WatchHandle> {
    this.calls.push(`watch ${resource} ${opts.namespace}/${opts.name} from ${opts.resourceVersion}`);
    this.fail('watchObject');
    const watch: FakeWatch = { resource, namespace: opts.namespace, name: opts.name, resourceVersion: opts.resourceVersion, stopped: false, onEvent: opts.onEvent, onDone: opts.onDone };
    this.watches.push(watch);
    return { stop: () => { watch.stopped = true; } };
  }

  async createServiceAccountToken(namespace: string, serviceAccountName: string, spec: TokenRequestBody): Promise<TokenRequestAnswer> {
    this.calls.push(`token ${namespace}/${serviceAccountName}`);
    this.tokenRequests.push({ namespace, serviceAccountName, spec: structuredClone(spec) });
    this.fail('createServiceAccountToken');
    const seconds = this.grantSeconds ?? spec.expirationSeconds;
    return {
      spec: { ...structuredClone(spec), expirationSeconds: seconds },
      status: { token: `token-${++this.tokens}`, expirationTimestamp: new Date(this.clock.now() + seconds * 1000).toISOString() },
    };
  }
}
