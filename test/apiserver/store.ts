/**
 * The in-memory registry behind the test API server: objects by storage key, one global
 * resourceVersion counter (as etcd's revision), a bounded history of changes for watches, and the
 * write rules of the Go registry (pkg/registry/.../strategy.go) that the kubelet can observe:
 *
 * - create sets uid, creationTimestamp, resourceVersion, generation (pods); pods get the API
 *   server's defaults and `status: {phase: Pending, qosClass}` whatever status they were sent with;
 * - update with a stale `metadata.resourceVersion` is a 409 Conflict; without one it is unconditional;
 *   a `metadata.uid` that is not the stored object's is a 409 too (a patch's uid is a precondition);
 * - the main resource keeps the stored status, the status subresource keeps the stored spec (and,
 *   for pods, ownerReferences and deletionTimestamp);
 * - a write that changes nothing is not a write (no new resourceVersion, no watch event);
 * - a resource's own rules (ResourceDef.prepareWrite: Secret stringData, immutable ConfigMaps, …)
 *   run on every create and update, direct writes included;
 * - DELETE of a pod bound to a node with a grace period > 0 only sets deletionTimestamp and
 *   deletionGracePeriodSeconds (a later shorter grace shortens them); grace 0, an unbound pod or a
 *   terminal one is removed at once. UID / resourceVersion preconditions are honoured.
 *
 * Not modelled (differs from Go): finalizers (objects are removed regardless), namespace deletion
 * cascading, admission, validation beyond names and the ConfigMap/Secret rules, managedFields.
 */
import { randomUUID } from 'node:crypto';
import { applyPodDefaults } from '../../src/domain/pod-config/pod-defaults.js';
import { computePodQOS } from '../../src/domain/pod/qos.js';
import type { Pod } from '../../src/domain/pod/types.js';
import { invalidObject } from './field-errors.js';
import { deepClone } from './json.js';
import { applyPatch } from './patch.js';
import { apiVersionOf, storageDef, type KubeObject, type ObjectMeta, type ResourceDef, type StorageKey } from './resources.js';
import { matchesSelection, parseFieldSelector, parseLabelSelector } from './selectors.js';
import { ApiError, apiErrors, STALE_OBJECT_MESSAGE } from './status.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed write, in storage form. `previous` is the object before it (for MODIFIED/DELETED). */
export interface StoreChange {
  type: WatchEventType;
  storage: StorageKey;
  resourceVersion: number;
  object: KubeObject;
  previous?: KubeObject;
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/** `main`: PUT/PATCH on the resource; `status`: on its status subresource; `direct`: a test writing everything. */
export type WriteMode = 'main' | 'status' | 'direct';

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface DeleteResult {
  object: KubeObject;
  /** false when a graceful deletion only marked the object. */
  removed: boolean;
}

export interface StoreOptions {
  /** How many changes a watch can resume across; older resourceVersions get 410. Default 1000. */
  historyLimit?: number;
  now?: () => Date;
}

/** Either a storage key for the core/v1 resource, or a resource definition (events.k8s.io/v1). */
export type ResourceRef = StorageKey | ResourceDef;

const GENERATE_NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

/** RFC 3339 with second precision, as metav1.Time marshals. */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function keyOf(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

/** JSON with object keys sorted, so equal objects compare equal whatever order a patch left their keys in. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

export class ObjectStore {
  private rv = 0;
  /** Highest resourceVersion no longer in history: a watch from below it is 410 Gone. */
  private compactedThrough = 0;
  private readonly objects = new Map<StorageKey, Map<string, KubeObject>>();
  private history: StoreChange[] = [];
  private readonly listeners = new Set<(change: StoreChange) => void>();
  private readonly historyLimit: number;
  private readonly now: () => Date;

  constructor(opts: StoreOptions = {}) {
    this.historyLimit = opts.historyLimit ?? 1000;
    this.now = opts.now ?? (() => new Date());
  }

  /** The current global resourceVersion, as a decimal string. */
  resourceVersion(): string {
    return String(this.rv);
  }

  /** The oldest resourceVersion a watch may start from. */
  oldestWatchable(): number {
    return this.compactedThrough;
  }

  /** Forget all history, as etcd compaction does: every watch from an older resourceVersion now gets 410. */
  compact(): void {
    this.history = [];
    this.compactedThrough = this.rv;
  }

  /** Changes with resourceVersion > `from`, or undefined when that far back was compacted. */
  changesSince(from: number): StoreChange[] | undefined {
    if (from < this.compactedThrough) return undefined;
    return this.history.filter((c) => c.resourceVersion > from);
  }

  subscribe(listener: (change: StoreChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(ref: ResourceRef, namespace: string | undefined, name: string): KubeObject | undefined {
    const def = this.def(ref);
    const found = this.bucket(def.storage).get(keyOf(def.namespaced ? namespace : undefined, name));
    return found === undefined ? undefined : this.serve(def, found);
  }

  /** Objects matching the options, sorted by namespace/name as etcd returns them, with the list's resourceVersion. */
  list(ref: ResourceRef, opts: ListOptions = {}): { items: KubeObject[]; resourceVersion: string } {
    const def = this.def(ref);
    const selection = {
      labels: parseLabelSelector(opts.labelSelector),
      fields: parseFieldSelector(opts.fieldSelector, def),
      ...(def.namespaced && opts.namespace !== undefined ? { namespace: opts.namespace } : {}),
    };
    const items = [...this.bucket(def.storage).entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, obj]) => this.serve(def, obj))
      .filter((obj) => matchesSelection(obj, selection));
    return { items, resourceVersion: this.resourceVersion() };
  }

  create(ref: ResourceRef, input: KubeObject, namespace?: string): KubeObject {
    const def = this.def(ref);
    const obj = this.toStorage(def, input);
    const meta: ObjectMeta = (obj.metadata ??= {});
    if (def.namespaced) {
      const ns = namespace ?? meta.namespace ?? 'default';
      if (meta.namespace !== undefined && meta.namespace !== ns) {
        throw apiErrors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = ns;
    } else {
      delete meta.namespace;
    }
    if ((meta.name === undefined || meta.name === '') && meta.generateName) {
      meta.name = meta.generateName + Array.from({ length: 5 }, () =>
        GENERATE_NAME_CHARS[Math.floor(Math.random() * GENERATE_NAME_CHARS.length)]).join('');
    }
    if (meta.name === undefined || meta.name === '') {
      throw apiErrors.invalid(`${def.kind} "" is invalid: metadata.name: Required value: name or generateName is required`);
    }
    const bucket = this.bucket(def.storage);
    const key = keyOf(meta.namespace, meta.name);
    if (bucket.has(key)) throw apiErrors.alreadyExists(def.group, def.resource, meta.name);
    meta.uid = randomUUID();
    meta.creationTimestamp = rfc3339(this.now());
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (def.hasGeneration) meta.generation = 1;
    else delete meta.generation;
    this.prepareForCreate(def.storage, obj);
    storageDef(def.storage).prepareWrite?.(obj, undefined);
    return this.serve(def, this.commit('ADDED', def.storage, key, obj, undefined));
  }

  /**
   * Replaces an object. A `metadata.resourceVersion` in `input` must match the stored one (409
   * otherwise); system metadata (uid, creationTimestamp, deletion, generation) is the server's.
   */
  update(ref: ResourceRef, input: KubeObject, mode: WriteMode = 'direct', namespace?: string, name?: string): KubeObject {
    const def = this.def(ref);
    const obj = this.toStorage(def, input);
    const meta: ObjectMeta = (obj.metadata ??= {});
    const objName = name ?? meta.name ?? '';
    const ns = def.namespaced ? (namespace ?? meta.namespace ?? 'default') : undefined;
    const key = keyOf(ns, objName);
    const old = this.bucket(def.storage).get(key);
    if (old === undefined) throw apiErrors.notFound(def.group, def.resource, objName);
    const oldMeta = old.metadata ?? {};
    if (meta.resourceVersion !== undefined && meta.resourceVersion !== '' && meta.resourceVersion !== oldMeta.resourceVersion) {
      throw apiErrors.conflict(def.group, def.resource, objName, STALE_OBJECT_MESSAGE);
    }
    // A uid in a PUT's body is a precondition (a patch's is checked in patch()).
    if (meta.uid !== undefined && meta.uid !== '' && meta.uid !== oldMeta.uid) {
      throw apiErrors.conflict(def.group, def.resource, objName,
        `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${oldMeta.uid ?? ''}`);
    }
    meta.name = objName;
    if (ns !== undefined) meta.namespace = ns;
    else delete meta.namespace;
    for (const field of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
      if (oldMeta[field] === undefined) delete meta[field];
      else (meta as Record<string, unknown>)[field] = oldMeta[field];
    }
    if (mode === 'main' && def.storage === 'pods' && obj.spec !== undefined) {
      obj.spec = (applyPodDefaults(obj as unknown as Pod) as unknown as KubeObject).spec;
    }
    if (mode === 'main' && def.hasStatus) this.keep(obj, old, 'status');
    if (mode === 'status') {
      this.keep(obj, old, 'spec');
      if (def.storage === 'pods') {
        // podStatusStrategy: the status endpoint may not touch owner references.
        if (oldMeta.ownerReferences === undefined) delete meta.ownerReferences;
        else meta.ownerReferences = oldMeta.ownerReferences;
      }
    }
    if (def.hasGeneration && mode !== 'status' && !sameJson(obj.spec, old.spec)) {
      meta.generation = (oldMeta.generation ?? 0) + 1;
    }
    obj.kind = old.kind;
    obj.apiVersion = old.apiVersion;
    meta.resourceVersion = oldMeta.resourceVersion;
    storageDef(def.storage).prepareWrite?.(obj, old);
    if (sameJson(obj, old)) return this.serve(def, old);
    return this.serve(def, this.commit('MODIFIED', def.storage, key, obj, old));
  }

  /** Applies a patch of the given content type to the served form and writes the result as `update` does. */
  patch(ref: ResourceRef, namespace: string | undefined, name: string, contentType: string, patch: unknown, mode: WriteMode = 'main'): KubeObject {
    const def = this.def(ref);
    const current = this.get(def, namespace, name);
    if (current === undefined) throw apiErrors.notFound(def.group, def.resource, name);
    const patched = applyPatch(contentType, current, patch) as KubeObject;
    if (patched === null || typeof patched !== 'object' || Array.isArray(patched)) {
      throw apiErrors.badRequest('the patch did not produce an object');
    }
    // A uid the patch changes is no precondition, as it is in a PUT's body: the real server applies
    // the patch and refuses the result, the uid being immutable.
    const uid = patched.metadata?.uid;
    if (uid !== undefined && uid !== '' && uid !== current.metadata?.uid) {
      throw invalidObject(def.group, def.kind, name, [{ type: 'Invalid', field: 'metadata.uid', value: uid, detail: 'field is immutable' }]);
    }
    // A resourceVersion the patch sets is a precondition (update checks it); otherwise the patch is unconditional.
    return this.update(def, patched, mode, namespace, name);
  }

  delete(ref: ResourceRef, namespace: string | undefined, name: string, opts: DeleteOptions = {}): DeleteResult {
    const def = this.def(ref);
    const ns = def.namespaced ? (namespace ?? 'default') : undefined;
    const key = keyOf(ns, name);
    const old = this.bucket(def.storage).get(key);
    if (old === undefined) throw apiErrors.notFound(def.group, def.resource, name);
    const oldMeta = old.metadata ?? {};
    const pre = opts.preconditions;
    if (pre?.uid !== undefined && pre.uid !== oldMeta.uid) {
      throw apiErrors.conflict(def.group, def.resource, name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${oldMeta.uid ?? ''}`);
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== oldMeta.resourceVersion) {
      throw apiErrors.conflict(def.group, def.resource, name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${oldMeta.resourceVersion ?? ''}`);
    }
    const grace = def.gracefulDelete ? this.gracePeriod(old, opts.gracePeriodSeconds) : 0;
    if (grace > 0) {
      if (oldMeta.deletionTimestamp !== undefined && (oldMeta.deletionGracePeriodSeconds ?? 0) <= grace) {
        return { object: this.serve(def, old), removed: false };
      }
      const marked = deepClone(old);
      const meta: ObjectMeta = (marked.metadata ??= {});
      meta.deletionTimestamp = rfc3339(new Date(this.now().getTime() + grace * 1000));
      meta.deletionGracePeriodSeconds = grace;
      return { object: this.serve(def, this.commit('MODIFIED', def.storage, key, marked, old)), removed: false };
    }
    const removed = deepClone(old);
    if (def.gracefulDelete) {
      const meta: ObjectMeta = (removed.metadata ??= {});
      meta.deletionTimestamp ??= rfc3339(this.now());
      meta.deletionGracePeriodSeconds = 0;
    }
    return { object: this.serve(def, this.commit('DELETED', def.storage, key, removed, old)), removed: true };
  }

  /** Go's pod BeforeDelete: the request's grace, else the spec's (default 30); 0 for unbound or terminal pods. */
  private gracePeriod(pod: KubeObject, requested: number | undefined): number {
    const spec = (pod.spec ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
    const phase = (pod.status as { phase?: string } | undefined)?.phase;
    if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
    const grace = requested ?? spec.terminationGracePeriodSeconds ?? 30;
    return Math.max(0, grace);
  }

  private prepareForCreate(storage: StorageKey, obj: KubeObject): void {
    if (storage === 'pods') {
      if (obj.spec === undefined || typeof obj.spec !== 'object') {
        throw apiErrors.invalid(`Pod "${obj.metadata?.name ?? ''}" is invalid: spec.containers: Required value`);
      }
      const defaulted = applyPodDefaults(obj as unknown as Pod);
      obj.spec = (defaulted as unknown as KubeObject).spec;
      let qosClass: string | undefined;
      try {
        qosClass = computePodQOS(defaulted);
      } catch {
        qosClass = undefined;
      }
      obj.status = qosClass === undefined ? { phase: 'Pending' } : { phase: 'Pending', qosClass };
    }
    if (storage === 'namespaces') obj.status = { phase: 'Active' };
    // Go encodes struct-valued spec and status even when empty (omitempty does not omit structs).
    if (storage === 'nodes' || storage === 'namespaces') {
      obj.spec ??= {};
      obj.status ??= {};
    }
  }

  private keep(obj: KubeObject, old: KubeObject, field: string): void {
    if (old[field] === undefined) delete obj[field];
    else obj[field] = deepClone(old[field]);
  }

  private commit(type: WatchEventType, storage: StorageKey, key: string, obj: KubeObject, previous: KubeObject | undefined): KubeObject {
    this.rv++;
    (obj.metadata ??= {}).resourceVersion = String(this.rv);
    const bucket = this.bucket(storage);
    if (type === 'DELETED') bucket.delete(key);
    else bucket.set(key, obj);
    const change: StoreChange = { type, storage, resourceVersion: this.rv, object: obj, ...(previous ? { previous } : {}) };
    this.history.push(change);
    if (this.history.length > this.historyLimit) {
      const dropped = this.history.splice(0, this.history.length - this.historyLimit);
      this.compactedThrough = dropped[dropped.length - 1]?.resourceVersion ?? this.compactedThrough;
    }
    for (const listener of [...this.listeners]) listener(change);
    return obj;
  }

  private toStorage(def: ResourceDef, input: KubeObject): KubeObject {
    const copy = deepClone(input);
    const obj = def.toStorage ? def.toStorage(copy) : copy;
    const target = storageDef(def.storage);
    obj.kind = target.kind;
    obj.apiVersion = apiVersionOf(target);
    return obj;
  }

  /** A copy in the resource's served form (kind and apiVersion set). */
  serve(def: ResourceDef, stored: KubeObject): KubeObject {
    const copy = deepClone(stored);
    const obj = def.fromStorage ? def.fromStorage(copy) : copy;
    obj.kind = def.kind;
    obj.apiVersion = apiVersionOf(def);
    return obj;
  }

  def(ref: ResourceRef): ResourceDef {
    return typeof ref === 'string' ? storageDef(ref) : ref;
  }

  private bucket(key: StorageKey): Map<string, KubeObject> {
    let b = this.objects.get(key);
    if (b === undefined) {
      b = new Map();
      this.objects.set(key, b);
    }
    return b;
  }
}

export { ApiError };
