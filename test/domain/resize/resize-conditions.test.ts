import { describe, expect, it } from 'vitest';
import { resizeConditionsOf } from '../../../src/domain/resize/resize-conditions.js';
import { resizeAfterSync, resizeAfterWeighing } from '../../../src/domain/resize/worker-resize.js';

const at = (s: number) => new Date(Date.UTC(2026, 10, 29, 12, 0, s)).toISOString().replace('.000Z', 'Z');

describe('resize conditions', () => {
  it('are reported True with their own generation, pending first, the error only where there is one', () => {
    const conditions = resizeConditionsOf({ pending: { reason: 'Deferred', message: 'no room', observedGeneration: 3 }, inProgress: { observedGeneration: 2 } }, [], Date.parse(at(5)));
    expect(conditions).toEqual([
      { type: 'PodResizePending', observedGeneration: 3, status: 'True', lastProbeTime: at(5), lastTransitionTime: at(5), reason: 'Deferred', message: 'no room' },
      { type: 'PodResizeInProgress', observedGeneration: 2, status: 'True', lastProbeTime: at(5), lastTransitionTime: at(5) },
    ]);
  });

  it('keep their transition time while the reason stays, and take a new one when it changes', () => {
    const first = resizeConditionsOf({ pending: { reason: 'Deferred', message: 'a', observedGeneration: 2 }, inProgress: null }, [], Date.parse(at(1)));
    const same = resizeConditionsOf({ pending: { reason: 'Deferred', message: 'b', observedGeneration: 3 }, inProgress: null }, first, Date.parse(at(9)));
    expect(same[0]?.lastTransitionTime).toBe(at(1));
    const changed = resizeConditionsOf({ pending: { reason: 'Infeasible', message: 'c', observedGeneration: 3 }, inProgress: null }, first, Date.parse(at(9)));
    expect(changed[0]?.lastTransitionTime).toBe(at(9));
  });

  it('follow the syncLoop: an allocation restarts the in-progress condition at its generation, a weighing sets or clears pending', () => {
    const erred = { pending: null, inProgress: { observedGeneration: 2, reason: 'Error', message: 'boom' } };
    expect(resizeAfterWeighing(erred, { pending: null, startedGeneration: 4 })).toEqual({ pending: null, inProgress: { observedGeneration: 4 } });
    expect(resizeAfterWeighing(erred, { pending: { reason: 'Infeasible', message: 'x', observedGeneration: 5 } })).toEqual({ pending: { reason: 'Infeasible', message: 'x', observedGeneration: 5 }, inProgress: erred.inProgress });
  });
});

describe('resize conditions after a sync', () => {
  const pod = { metadata: { name: 'p', uid: 'u', generation: 3 }, spec: { containers: [{ name: 'main', image: 'x' }] } };
  const read = { podStatus: { runtimeStatus: { uid: 'u', name: 'p', namespace: 'd', ips: [], sandboxes: [], containers: [] }, observedAtMs: 0 } };

  it('completes a resize once the containers run what is allocated, naming the generation it was started for', () => {
    const after = resizeAfterSync({ pending: null, inProgress: { observedGeneration: 2 } }, read, pod);
    expect(after.resize.inProgress).toBeNull();
    expect(after.event).toEqual({ eventType: 'Normal', reason: 'ResizeCompleted', message: 'Pod resize completed: {"containers":[{"name":"main","resources":{}}],"generation":2}' });
  });

  it('sets the Error reason with ResizeError once per message, and keeps or starts the condition while in progress', () => {
    const failed = resizeAfterSync({ pending: null, inProgress: { observedGeneration: 2 } }, { resize: { status: 'failed', message: 'boom' } }, pod);
    expect(failed.resize.inProgress).toEqual({ observedGeneration: 2, reason: 'Error', message: 'boom' });
    expect(failed.event?.reason).toBe('ResizeError');
    expect(resizeAfterSync(failed.resize, { resize: { status: 'failed', message: 'boom' } }, pod).event).toBeUndefined();
    expect(resizeAfterSync({ pending: null, inProgress: null }, { resizeInProgress: true }, pod).resize.inProgress).toEqual({ observedGeneration: 3 });
    // No status read: nothing known, nothing changed.
    expect(resizeAfterSync({ pending: null, inProgress: { observedGeneration: 2 } }, {}, pod).event).toBeUndefined();
  });
});
