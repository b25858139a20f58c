/**
 * A child machine's slot in its parent's `setup({ actors })`: any actor logic that takes the child's
 * Input. The composition root provides the real machine (checked against that Input by `provide()`),
 * tests provide a callback. Snapshot, events and emitted events stay open (`any`), as in xstate's own
 * AnyActorLogic: a slot typed with a narrower snapshot would refuse every machine, because the
 * snapshot is a parameter of `transition` and parameters are compared contravariantly.
 */
import { fromCallback, type ActorLogic, type AnyEventObject } from 'xstate';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type SubsystemLogic<TInput> = ActorLogic<any, any, TInput, any, any>;

/** The placeholder until provided: a child that does nothing. */
export const subsystemSlot = <TInput>(): SubsystemLogic<TInput> => fromCallback<AnyEventObject, TInput>(() => {});
