/**
 * core/v1 Events as the Go kubelet's recorder makes them (client-go tools/record: event.go
 * makeEvent, events_cache.go EventCorrelator in its simplest form). Pure.
 *
 * A repeat of an event (same source, object, type, reason and message) already posted is not a
 * new Event: the stored one gets count + 1 and a new lastTimestamp (Go's eventObserve → patch).
 * Similar-event aggregation and the per-object spam filter are the EventCorrelator's
 * (event-correlator.ts); the event client adds its own rate limit (eventRecordQPS / eventBurst).
 */

export type EventType = 'Normal' | 'Warning';

/** Go's v1.ObjectReference as events use it. */
export interface ObjectReference {
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** A Warning event about a pod, the way the kubelet's relays record them. */
export function podWarning(pod: { namespace: string; name: string; uid: string }, reason: string, message: string): EventRequest {
  return { object: { kind: 'Pod', apiVersion: 'v1', namespace: pod.namespace, name: pod.name, uid: pod.uid }, type: 'Warning', reason, message };
}

export interface EventSource {
  component: string;
  host?: string;
}

export interface CoreEvent {
  apiVersion: 'v1';
  kind: 'Event';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  involvedObject: ObjectReference;
  reason: string;
  message: string;
  source: EventSource;
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  type: EventType;
  reportingComponent: string;
  reportingInstance: string;
}

export interface EventRequest {
  object: ObjectReference;
  type: EventType;
  reason: string;
  message: string;
}

/** Go's maxLruCacheEntries. */
export const EVENT_CACHE_SIZE = 4096;

/** Go's getEventKey: what makes two events the same event. */
export function eventKey(source: EventSource, request: EventRequest): string {
  const o = request.object;
  return [
    source.component, source.host ?? '', o.kind, o.namespace ?? '', o.name, o.fieldPath ?? '', o.uid ?? '', o.apiVersion ?? '',
    request.type, request.reason, request.message,
  ].join('\u0000');
}

/**
 * Go's makeEvent: named `<object name>.<time in ns, hex>` (the sequence number keeps two events of
 * the same millisecond apart), in the object's namespace (`default` for cluster-scoped objects
 * such as the Node, as Go does).
 */
export function makeEvent(source: EventSource, request: EventRequest, nowMs: number, sequence: number): CoreEvent {
  const at = new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const nanos = BigInt(Math.trunc(nowMs)) * 1_000_000n + BigInt(sequence % 1_000_000);
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${request.object.name}.${nanos.toString(16)}`, namespace: request.object.namespace || 'default' },
    involvedObject: { ...request.object },
    reason: request.reason,
    message: request.message,
    source: { ...source },
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
    type: request.type,
    reportingComponent: source.component,
    reportingInstance: source.host ?? '',
  };
}

/**
 * What the cache keeps of an Event it posted: what a repeat's patch needs, as Go's eventLog keeps
 * a count and a name; not the API server's answer, whose metadata and managedFields would stay in
 * memory for every event the cache holds.
 */
export interface PostedEvent {
  namespace: string;
  name: string;
  count: number;
}

/** The merge patch for a repeat of `previous` at `nowMs` (a combined event carries the latest message). */
export function repeatPatch(previous: PostedEvent, nowMs: number, message: string): { count: number; lastTimestamp: string; message: string } {
  return { count: previous.count + 1, lastTimestamp: new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z'), message };
}

/** A small LRU by insertion order (Map keeps it); a hit moves the key to the end. */
export class EventCache {
  private readonly entries = new Map<string, PostedEvent>();
  constructor(private readonly capacity = EVENT_CACHE_SIZE) {}

  get(key: string): PostedEvent | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, event: PostedEvent): void {
    this.entries.delete(key);
    this.entries.set(key, event);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
