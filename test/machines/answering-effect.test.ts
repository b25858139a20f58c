import { describe, expect, it } from 'vitest';
import { createActor, setup, spawnChild, stopChild, type AnyEventObject } from 'xstate';
import { effectNotProvided, fromAnsweringPromise } from '../../src/machines/answering-effect.js';
import { answerOf } from '../support/answer-of.js';
import { deferred } from '../support/deferred.js';
import { settle } from '../support/settle.js';

describe('fromAnsweringPromise', () => {
  it('answers its parent under one type, with its own id and the output', async () => {
    const answer = await answerOf(fromAnsweringPromise(async (input: { n: number }) => input.n * 2), { n: 21 });
    expect(answer).toMatchObject({ type: 'effect.answered', output: 42 });
    expect(typeof answer.id).toBe('string');
  });

  it('answers a rejection, and a synchronous throw, with the error serialized', async () => {
    const rejected = await answerOf(fromAnsweringPromise(async () => { throw new Error('no such pod'); }), {});
    expect(rejected).toMatchObject({ type: 'effect.answered', error: { message: 'no such pod' } });
    const thrown = await answerOf(fromAnsweringPromise((): Promise<never> => { throw new Error('at once'); }), {});
    expect(thrown).toMatchObject({ error: { message: 'at once' } });
    expect(await answerOf(effectNotProvided('patchPodStatus'), {})).toMatchObject({ error: { message: 'actor patchPodStatus was not provided' } });
  });

  it('says nothing once its parent stopped it', async () => {
    const gate = deferred<string>();
    const received: string[] = [];
    const parent = setup({ types: {} as { events: AnyEventObject }, actors: { effect: fromAnsweringPromise(() => gate.promise) } }).createMachine({
      on: {
        start: { actions: spawnChild('effect', { id: 'patch:u1:0' }) },
        stop: { actions: stopChild('patch:u1:0') },
        'effect.answered': { actions: ({ event }) => void received.push(event['id']) },
      },
    });
    const actor = createActor(parent).start();
    actor.send({ type: 'start' });
    expect(Object.keys(actor.getSnapshot().children)).toEqual(['patch:u1:0']);
    actor.send({ type: 'stop' });
    gate.resolve('late');
    await settle();
    expect(received).toEqual([]);
    actor.stop();
  });
});
