import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/domain/pod/types.js';
import { resizePendingMessage, resizeProgressMessage } from '../../../src/domain/resize/resize-messages.js';

const pod: Pod = {
  metadata: { name: 'p', uid: 'u' },
  spec: {
    initContainers: [{ name: 'c0', image: 'x', restartPolicy: 'Always', resources: { requests: { cpu: '100m' }, limits: { cpu: '200m' } } }],
    containers: [
      { name: 'c1', image: 'x', resources: { requests: { memory: '100' }, limits: { memory: '200' } } },
      { name: 'c2', image: 'x', resources: { requests: { memory: '100', cpu: '200m' } } },
      { name: 'c3', image: 'x' },
    ],
  },
};

describe('resize event messages', () => {
  it('write Go\'s summary: init containers, containers, limits before requests, names sorted, the generation', () => {
    expect(resizeProgressMessage('ResizeCompleted', pod, 2)).toBe(
      'Pod resize completed: {"initContainers":[{"name":"c0","resources":{"limits":{"cpu":"200m"},"requests":{"cpu":"100m"}}}],'
      + '"containers":[{"name":"c1","resources":{"limits":{"memory":"200"},"requests":{"memory":"100"}}},{"name":"c2","resources":{"requests":{"cpu":"200m","memory":"100"}}},{"name":"c3","resources":{}}],"generation":2}');
  });

  it('carry the error or the pending reason\'s message last', () => {
    expect(resizeProgressMessage('ResizeError', pod, 3, 'boom')).toMatch(/^Pod resize error: \{.*"generation":3,"error":"boom"\}$/);
    expect(resizePendingMessage(pod, 'Infeasible', 'too big', 4)).toMatch(/^Pod resize Infeasible: \{.*"generation":4,"error":"too big"\}$/);
  });
});
