import { describe, expect, it } from 'vitest';
import { resizeFamily } from '../../../../src/domain/explain/families/resize.js';
import { Records, UID } from '../records.js';

function resizeEvent(r: Records, t: number, reason: string, message: string, uid = UID) {
  return r.add(t, { actor: 'syncLoop', type: 'action', name: 'emit', payload: { event: { type: 'pod.resize.event', pod: { namespace: 'default', name: 'web', uid }, eventType: 'Normal', reason, message } } });
}

describe('resizeFamily', () => {
  it('tells why a resize is pending, then that it was allocated and completed, each with its generation', () => {
    const r = new Records();
    resizeEvent(r, 1, 'ResizeInfeasible', 'Pod resize Infeasible: {"containers":[{"name":"main","resources":{}}],"generation":2,"error":"Node didn\'t have enough capacity: cpu, requested: 1000000, capacity: 2000"}');
    resizeEvent(r, 2, 'ResizeStarted', 'Pod resize started: {"containers":[{"name":"main","resources":{}}],"generation":3}');
    resizeEvent(r, 3, 'ResizeCompleted', 'Pod resize completed: {"containers":[{"name":"main","resources":{}}],"generation":3}');
    resizeEvent(r, 4, 'ResizeStarted', 'Pod resize started: {"generation":9}', 'another-pod');
    expect(resizeFamily(r.history()).map((l) => [l.text, l.cites])).toEqual([
      ["resize pending (Infeasible): it cannot be allocated on this node: Node didn't have enough capacity: cpu, requested: 1000000, capacity: 2000 (generation 2)", [1]],
      ['resize allocated (generation 3)', [2]],
      ['resize completed (generation 3)', [3]],
    ]);
  });
});
