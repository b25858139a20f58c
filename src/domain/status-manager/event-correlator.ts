/**
 * What client-go's EventCorrelator does to an event before it is posted (tools/record
 * events_cache.go), pure with the time passed in:
 * - similar events (same source, object, type and reason; the message differs) seen 10 times within
 *   10 minutes become one event, "(combined from similar events): <latest message>", updated in place;
 * - a source may record 25 events about one object, then 1 more every 5 minutes (a token bucket per
 *   source + object, whatever the reason): the rest are dropped, so an object that is always
 *   unhealthy cannot flood the API server.
 * Exact repeats are counted by the recorder on the key this returns (eventKey, or the aggregate's).
 */
import { eventKey, type EventRequest, type EventSource, EVENT_CACHE_SIZE } from './event-aggregation.js';

export const SPAM_BURST = 25;
/** One token every 5 minutes. */
export const SPAM_REFILL_MS = 300_000;
export const AGGREGATE_MAX_EVENTS = 10;
export const AGGREGATE_INTERVAL_MS = 600_000;
export const COMBINED_PREFIX = '(combined from similar events): ';

export type Correlated =
  | { skip: true }
  | { skip: false; request: EventRequest; key: string };

interface Bucket { tokens: number; atMs: number }
interface Similar { messages: Set<string>; lastMs: number }

/** A Map kept in insertion order as a small LRU. */
class Lru<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly capacity: number) {}
  get(key: string): V | undefined {
    return this.entries.get(key);
  }
  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }
}

function objectKey(source: EventSource, request: EventRequest): string {
  const o = request.object;
  return [source.component, source.host ?? '', o.kind, o.namespace ?? '', o.name, o.uid ?? '', o.apiVersion ?? ''].join('\u0000');
}

export class EventCorrelator {
  private readonly buckets: Lru<Bucket>;
  private readonly similar: Lru<Similar>;

  constructor(private readonly source: EventSource, capacity = EVENT_CACHE_SIZE) {
    this.buckets = new Lru(capacity);
    this.similar = new Lru(capacity);
  }

  correlate(request: EventRequest, nowMs: number): Correlated {
    const aggregated = this.aggregate(request, nowMs);
    return this.allow(request, nowMs) ? { skip: false, ...aggregated } : { skip: true };
  }

  /** Go's EventAggregate: the event as it is, or the combined one once 10 similar events were seen. */
  private aggregate(request: EventRequest, nowMs: number): { request: EventRequest; key: string } {
    const similarKey = [objectKey(this.source, request), request.type, request.reason].join('\u0000');
    let record = this.similar.get(similarKey);
    if (!record || nowMs - record.lastMs > AGGREGATE_INTERVAL_MS) record = { messages: new Set(), lastMs: nowMs };
    record.messages.add(request.message);
    record.lastMs = nowMs;
    this.similar.set(similarKey, record);
    if (record.messages.size < AGGREGATE_MAX_EVENTS) return { request, key: eventKey(this.source, request) };
    // Keep the set at its bound, as Go does (which message goes does not matter).
    const first = record.messages.values().next();
    if (!first.done) record.messages.delete(first.value);
    return { request: { ...request, message: COMBINED_PREFIX + request.message }, key: `combined\u0000${similarKey}` };
  }

  /** Go's EventSourceObjectSpamFilter: true when the source may record this event about its object. */
  private allow(request: EventRequest, nowMs: number): boolean {
    const key = objectKey(this.source, request);
    const previous = this.buckets.get(key);
    const refilled = previous ? Math.min(SPAM_BURST, previous.tokens + (nowMs - previous.atMs) / SPAM_REFILL_MS) : SPAM_BURST;
    const allowed = refilled >= 1;
    this.buckets.set(key, { tokens: allowed ? refilled - 1 : refilled, atMs: nowMs });
    return allowed;
  }
}
