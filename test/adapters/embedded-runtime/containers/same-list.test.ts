import { describe, expect, it } from 'vitest';
import { SameList } from '../../../../src/adapters/embedded-runtime/containers/same-list.js';

describe('SameList', () => {
  it('hands back the previous list while the same items are listed in the same states', () => {
    const lists = new SameList<{ id: string; state: string; n?: number }>();
    const first = lists.keep([{ id: 'a', state: 'RUNNING' }, { id: 'b', state: 'RUNNING' }]);
    expect(lists.keep([{ id: 'a', state: 'RUNNING', n: 1 }, { id: 'b', state: 'RUNNING' }])).toBe(first);
  });

  it.each([
    ['a state changed', [{ id: 'a', state: 'RUNNING' }, { id: 'b', state: 'EXITED' }]],
    ['an item went', [{ id: 'a', state: 'RUNNING' }]],
    ['an item came', [{ id: 'a', state: 'RUNNING' }, { id: 'b', state: 'RUNNING' }, { id: 'c', state: 'CREATED' }]],
    ['another item in its place', [{ id: 'a', state: 'RUNNING' }, { id: 'c', state: 'RUNNING' }]],
  ])('answers the fresh list when %s', (_, fresh) => {
    const lists = new SameList<{ id: string; state: string }>();
    lists.keep([{ id: 'a', state: 'RUNNING' }, { id: 'b', state: 'RUNNING' }]);
    expect(lists.keep(fresh)).toBe(fresh);
    expect(lists.keep([...fresh])).toBe(fresh);
  });
});
