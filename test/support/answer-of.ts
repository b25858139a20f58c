/**
 * Runs an answering effect (src/machines/answering-effect.ts) under a parent, as a machine would,
 * and resolves with what it answered: a root actor has no parent to answer to.
 */
import { createActor, setup, type AnyActorLogic, type AnyEventObject } from 'xstate';
import type { AnsweringEffectLogic, EffectAnswered } from '../../src/machines/answering-effect.js';

export function answerOf<TOutput, TInput>(logic: AnsweringEffectLogic<TInput>, input: NoInfer<TInput>): Promise<EffectAnswered<TOutput>> {
  // setup's invoke types cannot resolve an input of a type parameter; the signature above keeps logic and input together.
  const effect: AnyActorLogic = logic;
  return new Promise((resolve) => {
    const parent = createActor(
      setup({ types: {} as { events: AnyEventObject }, actors: { effect } }).createMachine({
        invoke: { src: 'effect', input },
        on: {
          'effect.answered': {
            actions: ({ event }) => {
              resolve(event as EffectAnswered<TOutput>);
              queueMicrotask(() => parent.stop());
            },
          },
        },
      }),
    );
    parent.start();
  });
}

/** The output an answering effect answered with; rejects when it answered with an error. */
export async function outputOf<TOutput, TInput>(logic: AnsweringEffectLogic<TInput>, input: NoInfer<TInput>): Promise<TOutput> {
  const answer = await answerOf<TOutput, TInput>(logic, input);
  if ('error' in answer) throw new Error(`the effect answered with an error: ${answer.error.message}`);
  return answer.output;
}
