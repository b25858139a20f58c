import { describe, expect, it } from 'vitest';
import { decideNodeChanged, decideNodeRefreshed } from '../../../src/domain/sync-loop/live-node.js';
import { pod, state } from './fixtures.js';

describe('the live node', () => {
  it('takes the API server\'s labels and taints, keeping the rest of the node', () => {
    const next = decideNodeChanged(state(), { labels: { zone: 'a' }, taints: [{ key: 'k', effect: 'NoSchedule' }] });
    expect(next.node).toMatchObject({ name: 'node-a', labels: { zone: 'a' }, taints: [{ key: 'k', effect: 'NoSchedule' }], allocatable: { pods: 110 } });
  });

  it('a read answered adds again the pods that asked for it, and asks once more for the pods that came since', () => {
    const before = state({}, {
      nodeRefreshing: true,
      awaitingNode: { a: { pod: pod('a'), source: 'api', asked: true }, b: { pod: pod('b'), source: 'api', asked: false } },
    });
    const { state: next, commands } = decideNodeRefreshed(before);
    expect(commands).toEqual([{ kind: 'addDeferred', pod: pod('a'), source: 'api', afterNodeRefresh: true }, { kind: 'refreshNode' }]);
    expect(next).toMatchObject({ nodeRefreshing: true, awaitingNode: { b: { asked: true } } });
    expect(next.awaitingNode.a).toBeUndefined();
  });
});
