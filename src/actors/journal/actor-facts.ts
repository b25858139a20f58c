/**
 * What the journal and the debug directory read about an actor beyond the ActorRef interface the
 * inspection stream hands out: its systemId and its logic (is it a machine, and its id). ActorRef
 * does not declare them; XState's Actor class does, and every actor XState creates is one, so an
 * instanceof check reaches them without a cast. These are the only such reads, kept in this one
 * file so that a change to how actors are identified touches one place.
 */
import { Actor, type AnyActorRef } from 'xstate';

/** The systemId an actor was registered under, if any. */
export function systemIdOf(ref: AnyActorRef): string | undefined {
  if (!(ref instanceof Actor)) return undefined;
  // options.systemId is set before XState announces the actor; the systemId field only just after.
  return ref.options.systemId ?? ref.systemId;
}

/** Whether the actor runs a state machine (machines have a root state node; other logic does not). */
export function isMachineActor(ref: AnyActorRef): boolean {
  return ref instanceof Actor && typeof ref.logic === 'object' && ref.logic !== null && 'root' in ref.logic;
}

/** The actor's src when it was given by name, else its machine's id, else 'anonymous'. */
export function logicNameOf(ref: AnyActorRef): string {
  if (typeof ref.src === 'string') return ref.src;
  if (ref instanceof Actor && isMachineActor(ref) && 'id' in ref.logic && typeof ref.logic.id === 'string') return ref.logic.id;
  return 'anonymous';
}
