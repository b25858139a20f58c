/**
 * The List and Get answers, built at most once per state. The source hands out the same state
 * object until something it holds changes (the pods, the assignments, what the node can give), so
 * that object is the version: the index and the List answer are kept beside it and rebuilt only for
 * a new one. Go builds each List anew; here a monitoring client polling at the rate limit would
 * then spend the event loop rebuilding the same answer for every call.
 *
 * A build is synchronous, so no second List can start while one is built: every List at one state,
 * on one connection or several, shares the one answer.
 */
import { getAnswer, listAnswer, type GetResult, type ListAnswer, type PodResourcesState } from '../../domain/pod-resources/answers.js';
import { indexState, type StateIndex } from '../../domain/pod-resources/state-index.js';
import type { PodResourcesSource } from '../../ports/pod-resources.js';

export interface AnswerBuilders {
  index: (state: PodResourcesState) => StateIndex;
  list: (state: PodResourcesState, useActivePods: boolean, index: StateIndex) => ListAnswer;
}

const BUILDERS: AnswerBuilders = { index: indexState, list: listAnswer };

export interface AnswerCache {
  list(): ListAnswer;
  get(namespace: string, name: string): GetResult;
}

export function answerCache(source: PodResourcesSource, useActivePods: boolean, build: AnswerBuilders = BUILDERS): AnswerCache {
  let at: { state: PodResourcesState; index: StateIndex; list?: ListAnswer } | undefined;
  const current = () => {
    const state = source.state();
    if (at?.state !== state) at = { state, index: build.index(state) };
    return at;
  };
  return {
    list: () => {
      const c = current();
      return (c.list ??= build.list(c.state, useActivePods, c.index));
    },
    // One pod's answer is small: built per call, from the state's index.
    get: (namespace, name) => {
      const c = current();
      return getAnswer(c.state, namespace, name, c.index);
    },
  };
}
