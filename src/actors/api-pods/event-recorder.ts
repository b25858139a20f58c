/**
 * The kubelet's event recorder (client-go tools/record: a broadcaster with a recorder for source
 * component "kubelet", host = node name). `recordEvent` never blocks and never throws: events go
 * through a bounded queue (Go's broadcaster queue, 1000; beyond it the newest are dropped, as
 * Go's DropIfChannelFull does) and are posted one at a time through the event client, whose QPS
 * and burst limit them. Each event first goes through Go's EventCorrelator (similar events
 * combined, 25 per object then 1 per 5 minutes), at the time it is recorded. Repeats are
 * aggregated (count + 1, lastTimestamp) by a patch of the Event already posted; a patch that finds
 * the event gone posts it anew, as Go does.
 * Standalone: `createLogEventRecorder` writes each event to the log only.
 */
import { KubeletError } from '../../domain/errors.js';
import { EventCorrelator } from '../../domain/status-manager/event-correlator.js';
import {
  EventCache,
  makeEvent,
  repeatPatch,
  type EventRequest,
  type EventSource,
} from '../../domain/status-manager/event-aggregation.js';
import type { Logger } from '../../log.js';
import type { EventApi } from '../../ports/apiserver.js';
import type { Clock } from '../../ports/clock.js';
import type { EventRecorder } from '../../ports/event-recorder.js';
import { toApiObject } from './api-objects.js';

export const EVENT_QUEUE_LENGTH = 1000;

export interface ApiEventRecorderOptions {
  events: EventApi;
  clock: Clock;
  logger: Logger;
  /** The node name: Go's event source host. */
  host: string;
  component?: string;
}

const isNotFound = (err: unknown): boolean => err instanceof KubeletError && err.code === 'KLT_ERR_API_NOT_FOUND';

export function createApiEventRecorder(opts: ApiEventRecorderOptions): EventRecorder {
  const source: EventSource = { component: opts.component ?? 'kubelet', host: opts.host };
  const cache = new EventCache();
  const correlator = new EventCorrelator(source);
  const queue: { request: EventRequest; key: string; atMs: number }[] = [];
  let sequence = 0;
  let draining: Promise<void> | null = null;

  async function post(request: EventRequest, key: string, atMs: number): Promise<void> {
    const previous = cache.get(key);
    if (previous) {
      const patch = repeatPatch(previous, atMs, request.message);
      try {
        await opts.events.patchEvent(previous.namespace, previous.name, patch);
        cache.set(key, { ...previous, count: patch.count });
        return;
      } catch (err) {
        if (!isNotFound(err)) throw err;
        // The event expired in the API server (events have a TTL): post it as a new one.
      }
    }
    const event = makeEvent(source, request, atMs, sequence++);
    await opts.events.createEvent(event.metadata.namespace, toApiObject(event));
    cache.set(key, { namespace: event.metadata.namespace, name: event.metadata.name, count: event.count });
  }

  async function drain(): Promise<void> {
    for (let next = queue.shift(); next; next = queue.shift()) {
      try {
        await post(next.request, next.key, next.atMs);
      } catch (err) {
        opts.logger.warn({ err, reason: next.request.reason, object: next.request.object }, 'Unable to write event');
      }
    }
  }

  /** Starts draining unless it runs; an event queued as a drain ends is picked up by the next. */
  function kick(): void {
    if (draining) return;
    draining = drain().finally(() => {
      draining = null;
      if (queue.length > 0) kick();
    });
  }

  return {
    recordEvent(request) {
      if (queue.length >= EVENT_QUEUE_LENGTH) {
        opts.logger.warn({ reason: request.reason }, 'Event queue full, dropping event');
        return;
      }
      const atMs = opts.clock.now();
      const correlated = correlator.correlate(request, atMs);
      if (correlated.skip) {
        opts.logger.debug({ reason: request.reason, object: request.object }, 'Event dropped by the spam filter');
        return;
      }
      queue.push({ request: correlated.request, key: correlated.key, atMs });
      kick();
    },
    async flush() {
      while (draining) await draining;
    },
  };
}

/** Standalone: no API server, so events only reach the log (Go logs them at verbosity 2 too). */
export function createLogEventRecorder(logger: Logger): EventRecorder {
  return {
    recordEvent(request) {
      logger.debug({ object: request.object, eventType: request.type, reason: request.reason, eventMessage: request.message }, 'Event occurred');
    },
    flush: async () => undefined,
  };
}
