import type { AnyEventObject, EventObject } from 'xstate';
import { serializeError, type SerializedError } from '../domain/errors.js';

/**
 * Reading what an invoked or spawned effect finished or failed with.
 *
 * An inline `onDone`/`onError` of an invoke whose src is typed reads XState's typed `event.output`
 * or `event.error` directly. Named actions and guards cannot: they see the machine's own event
 * union, which cannot list done and error events (their type carries the child's id, made at
 * spawn time). They use these two helpers, the one place that trusts the event's shape, instead
 * of a cast in each machine.
 */

/** The output from an `xstate.done.actor.*` event; the caller names what its effect returns. */
export function doneOutput<T>(event: EventObject): T {
  const output: T = (event as AnyEventObject).output;
  return output;
}

/** The error from an `xstate.error.actor.*` event, serialized for the context and the journal. */
export function effectError(event: EventObject): SerializedError {
  return serializeError((event as { error?: unknown }).error);
}
