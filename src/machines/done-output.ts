import type { AnyEventObject } from 'xstate';

/**
 * The output an invoked or spawned effect finished with, read from its `xstate.done.actor.*` event.
 *
 * Named actions and guards see the machine's own event union, which cannot list done events (their
 * type carries the child's id, made at spawn time), so XState hands them over as AnyEventObject,
 * whose fields are `any`. The caller names what the effect it listens to returns; this is the one
 * place that trusts it, instead of a cast in each machine.
 */
export function doneOutput<T>(event: AnyEventObject): T {
  const output: T = event.output;
  return output;
}
