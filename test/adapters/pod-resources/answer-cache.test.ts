import { describe, expect, it, vi } from 'vitest';
import { answerCache, type AnswerBuilders } from '../../../src/adapters/pod-resources/answer-cache.js';
import { listAnswer, type PodResourcesState } from '../../../src/domain/pod-resources/answers.js';
import { indexState } from '../../../src/domain/pod-resources/state-index.js';
import { expectedPod, largeNode } from '../../domain/pod-resources/large-node.js';

function counted(): AnswerBuilders & { index: ReturnType<typeof vi.fn>; list: ReturnType<typeof vi.fn> } {
  return { index: vi.fn(indexState), list: vi.fn(listAnswer) };
}

describe('answerCache', () => {
  it('builds the List answer once per state: a second List at the same state is the same answer, unbuilt', () => {
    const state = largeNode(1000);
    const build = counted();
    const answers = answerCache({ state: () => state }, true, build);
    const first = answers.list();
    expect(first.pod_resources).toEqual(Array.from({ length: 1000 }, (_, i) => expectedPod(i)));
    expect(answers.list()).toBe(first);
    expect(build.list).toHaveBeenCalledTimes(1);
    expect(build.index).toHaveBeenCalledTimes(1);
  });

  it('rebuilds the index and the answer when the source gives a new state', () => {
    let state: PodResourcesState = largeNode(2);
    const build = counted();
    const answers = answerCache({ state: () => state }, true, build);
    answers.list();
    state = largeNode(3);
    expect(answers.list().pod_resources).toHaveLength(3);
    expect(build.list).toHaveBeenCalledTimes(2);
    expect(build.index).toHaveBeenCalledTimes(2);
  });

  it('answers Get from the index of the state, built once however many Gets and Lists ask', () => {
    const state = largeNode(10);
    const build = counted();
    const answers = answerCache({ state: () => state }, true, build);
    expect(answers.get('ns', 'p7')).toEqual({ ok: true, answer: { pod_resources: expectedPod(7) } });
    expect(answers.get('ns', 'nope')).toEqual({ ok: false, message: 'pod nope in namespace ns not found' });
    answers.list();
    expect(build.index).toHaveBeenCalledTimes(1);
  });
});
