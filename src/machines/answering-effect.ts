/**
 * Effects that answer their parent under one event type, `effect.answered`, their own id inside.
 *
 * Why not a promise actor's own answer: that reaches the parent as `xstate.done.actor.<child id>`,
 * a type that carries the id. XState 5 memoises, on every state node it asks, the transitions
 * found for each event type (StateNode.next), and never forgets a type. Children whose ids never
 * repeat (one per status patch, per pod directory removed) would each add entries there for as
 * long as the kubelet runs (docs/FINDINGS.md). Under one type, the
 * memo holds one entry however many effects ran.
 *
 * An answering effect never ends by itself: its parent stops it once the answer is in (a child
 * stays among its parent's children until then). A promise that rejects still answers, with the
 * error serialized, so the parent is never left waiting.
 */
import { fromCallback, type AnyEventObject, type CallbackActorLogic } from 'xstate';
import { serializeError, type SerializedError } from '../domain/errors.js';

export const EFFECT_ANSWERED = 'effect.answered';

/** What an answering effect sends its parent. */
export type EffectAnswered<TOutput> = { type: typeof EFFECT_ANSWERED; id: string } & ({ output: TOutput } | { error: SerializedError });

export type AnsweringEffectLogic<TInput> = CallbackActorLogic<AnyEventObject, TInput>;

/** An effect running `run` once, answering with its result (or its rejection) as `effect.answered`. */
export function fromAnsweringPromise<TOutput, TInput>(run: (input: TInput) => Promise<TOutput>): AnsweringEffectLogic<TInput> {
  return fromCallback<AnyEventObject, TInput>(({ input, self, sendBack }) => {
    // The executor runs `run` at once and turns a synchronous throw into a rejection.
    new Promise<TOutput>((resolve) => resolve(run(input))).then(
      (output) => sendBack({ type: EFFECT_ANSWERED, id: self.id, output } satisfies EffectAnswered<TOutput>),
      (error: unknown) => sendBack({ type: EFFECT_ANSWERED, id: self.id, error: serializeError(error) } satisfies EffectAnswered<TOutput>),
    );
  });
}

/** The placeholder until provided: it answers that it was not provided. */
export const effectNotProvided = <TOutput, TInput>(name: string): AnsweringEffectLogic<TInput> =>
  fromAnsweringPromise<TOutput, TInput>(async () => {
    throw new Error(`actor ${name} was not provided`);
  });

/** The answer's output, when the effect answered with one (not with an error). */
export function answeredOutput<TOutput>(event: EffectAnswered<TOutput>): TOutput | undefined {
  return 'output' in event ? event.output : undefined;
}
