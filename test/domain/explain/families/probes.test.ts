import { describe, expect, it } from 'vitest';
import { probesFamily } from '../../../../src/domain/explain/families/probes.js';
import { Records, UID } from '../records.js';

const worker = (probe: string) => `probe:${UID}:main:${probe}`;

/** A probe run's answer, then the worker telling the syncLoop its verdict changed (when `changed`). */
function run(r: Records, t: number, probe: string, result: string, output?: string, changed = true) {
  r.add(t, { actor: worker(probe), kind: 'input', type: 'event', name: 'xstate.done.actor.runProbe', source: `${worker(probe)}/runProbe`, payload: { output: { result, ...(output ? { output } : {}) } } });
  if (changed) sent(r, t + 1, probe, result, output);
}

function sent(r: Records, t: number, probe: string, result: string, output?: string) {
  r.add(t, { actor: worker(probe), type: 'action', name: 'send', payload: { to: 'syncLoop', event: { type: 'probe.result.changed', podUid: UID, container: 'main', containerId: 'c1', probe, result, ...(output ? { output } : {}) } } });
}

describe('probesFamily', () => {
  it('tells each changed verdict with its container, what it means for the pod and the probe\'s output, citing the run and the change', () => {
    const r = new Records();
    run(r, 100, 'startup', 'success');
    run(r, 200, 'readiness', 'success');
    run(r, 300, 'readiness', 'success', undefined, false);
    run(r, 400, 'readiness', 'failure', "cat: can't open '/tmp/ready': No such file or directory\n");
    run(r, 500, 'liveness', 'failure', 'HTTP probe failed with statuscode: 500');
    expect(probesFamily(r.history()).map((l) => [l.t, l.family, l.text, l.cites])).toEqual([
      [100, 'probes', 'startup probe of container main succeeded: started', [1, 2]],
      [200, 'probes', 'readiness probe of container main succeeded: ready', [3, 4]],
      [400, 'probes', "readiness probe of container main failed: not ready (cat: can't open '/tmp/ready': No such file or directory)", [6, 7]],
      [500, 'probes', 'liveness probe of container main failed (HTTP probe failed with statuscode: 500)', [8, 9]],
    ]);
  });

  it('tells a readiness verdict reset for a new container and one failed by its container\'s exit, and leaves out a liveness reset', () => {
    const r = new Records();
    r.add(100, { actor: worker('liveness'), type: 'event', name: 'probe.container.restarted', payload: { containerId: 'c2' } });
    sent(r, 100, 'liveness', 'success');
    r.add(100, { actor: worker('readiness'), type: 'event', name: 'probe.container.restarted', payload: { containerId: 'c2' } });
    sent(r, 100, 'readiness', 'failure');
    r.add(200, { actor: worker('readiness'), type: 'event', name: 'probe.container.exited', payload: {} });
    sent(r, 200, 'readiness', 'failure');
    expect(probesFamily(r.history()).map((l) => [l.text, l.cites])).toEqual([
      ['readiness of container main starts again as failure for its new container: not ready', [3, 4]],
      ['readiness of container main is failure: its container exited: not ready', [5, 6]],
    ]);
  });

  it('cuts long output to one line of 200 characters and ignores another pod\'s probes', () => {
    const r = new Records();
    run(r, 100, 'readiness', 'failure', `${'x'.repeat(150)}\n${'y'.repeat(100)}`);
    r.add(200, { actor: 'probe:other-uid:main:readiness', type: 'action', name: 'send', payload: { to: 'syncLoop', event: { type: 'probe.result.changed', container: 'main', probe: 'readiness', result: 'success' } } });
    const lines = probesFamily(r.history());
    expect(lines).toHaveLength(1);
    expect(lines[0]!.text).toBe(`readiness probe of container main failed: not ready (${'x'.repeat(150)} ${'y'.repeat(49)}…)`);
  });
});
