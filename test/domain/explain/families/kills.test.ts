import { describe, expect, it } from 'vitest';
import { killsFamily } from '../../../../src/domain/explain/families/kills.js';
import { Records, UID } from '../records.js';

const C1 = 'e9e95177be2bca22fab4549cf9b17b788e3084f4a2836baee6ce82b4b8f7ef49';
const worker = `pod:${UID}`;

function killRequested(r: Records, t: number, payload: Record<string, unknown>) {
  return r.add(t, { actor: worker, type: 'event', name: 'pod.kill.requested', source: 'syncLoop', payload });
}

function killDone(r: Records, t: number, ok: boolean, steps: object[]) {
  return r.add(t, { actor: worker, kind: 'input', type: 'event', name: 'xstate.done.actor.killPod', source: `${worker}/killPod`, payload: { output: { podUid: UID, ok, steps } } });
}

const stopped = [
  { step: 'killContainer', target: 'main', ok: true, id: C1, durationMs: 65 },
  { step: 'killPodSandbox', target: 'default/web', ok: true, durationMs: 76 },
];

describe('killsFamily', () => {
  it('tells an API deletion with its grace period and the kill\'s outcome', () => {
    const r = new Records();
    killRequested(r, 100, { gracePeriodSeconds: 5, reason: 'deleted' });
    killDone(r, 250, true, stopped);
    expect(killsFamily(r.history()).map((l) => [l.t, l.family, l.text, l.cites])).toEqual([
      [100, 'kills', 'kill requested: the pod was deleted through the API (grace period 5s)', [1]],
      [250, 'kills', 'pod killed: container main (e9e95177be2b) stopped, sandbox stopped', [2]],
    ]);
  });

  it.each([
    ['the eviction manager', {}, 'The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. '],
    ['node shutdown', { requester: 'nodeShutdown' }, 'Pod was terminated in response to imminent node shutdown.'],
  ])('tells an eviction by %s with its message, citing the request to the syncLoop and the worker\'s kill', (who, extra, message) => {
    const r = new Records();
    r.add(100, { actor: 'syncLoop', type: 'event', name: 'pod.evict.requested', payload: { podUid: UID, gracePeriodSeconds: 1, reason: 'Evicted', message, ...extra } });
    killRequested(r, 101, { gracePeriodSeconds: 1, reason: 'evicted', eviction: { reason: 'Evicted', message } });
    killDone(r, 300, false, [{ ...stopped[0], ok: false, error: { message: 'rpc error: deadline exceeded' } }]);
    expect(killsFamily(r.history()).map((l) => [l.t, l.text, l.cites])).toEqual([
      [100, `kill requested by ${who} (grace period 1s): ${message}`, [1, 2]],
      [300, 'kill failed: container main (e9e95177be2b) not stopped: rpc error: deadline exceeded', [3]],
    ]);
  });

  it('ignores another pod\'s eviction request and tells a kill with an unknown reason and no grace period as it is', () => {
    const r = new Records();
    r.add(100, { actor: 'syncLoop', type: 'event', name: 'pod.evict.requested', payload: { podUid: 'other', gracePeriodSeconds: 1, message: 'x' } });
    killRequested(r, 200, { reason: 'orphaned' });
    r.add(300, { actor: worker, kind: 'input', type: 'event', name: 'xstate.error.actor.killPod', payload: { error: { message: 'runtime down' } } });
    expect(killsFamily(r.history()).map((l) => [l.text, l.cites])).toEqual([
      ['kill requested: orphaned (the pod\'s grace period)', [2]],
      ['kill failed: runtime down', [3]],
    ]);
  });

  it('tells each container a sync killed with Go\'s reason and message, and whether the kill went through', () => {
    const r = new Records();
    r.syncDone(100, {
      ok: true,
      actions: { containersToKill: [{ id: C1, name: 'main', reason: 'LivenessProbe', message: 'Container main failed liveness probe, will be restarted' }], containersToStart: ['main'] },
      steps: [{ step: 'killContainer', target: 'main', ok: true, id: C1, durationMs: 55 }, { step: 'startContainer', target: 'main', ok: true, id: 'new', durationMs: 1 }],
    });
    r.syncDone(200, {
      ok: false,
      actions: { containersToKill: [{ id: C1, name: 'main', reason: 'StartupProbe', message: 'Container main failed startup probe, will be restarted' }] },
      steps: [{ step: 'killContainer', target: 'main', ok: false, id: C1, error: { message: 'timeout' }, durationMs: 1 }],
    });
    expect(killsFamily(r.history()).map((l) => [l.t, l.text, l.cites])).toEqual([
      [100, 'container main (e9e95177be2b) killed: LivenessProbe: Container main failed liveness probe, will be restarted', [1]],
      [200, 'container main (e9e95177be2b) kill failed: timeout: StartupProbe: Container main failed startup probe, will be restarted', [2]],
    ]);
  });

  it('tells the kills a worker starts unasked: a pod deleted at its start or in an update, an orphan, a passed active deadline; a retried kill once', () => {
    const deleting = { metadata: { name: 'web', namespace: 'default', uid: UID, deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 30 } };
    const spawnWorker = (r: Records, input: Record<string, unknown>) => r.add(100, { actor: 'syncLoop', type: 'action', name: 'spawn', payload: { child: worker, src: 'podWorker', input } });
    const spawnKill = (r: Records, t: number) => r.add(t, { actor: worker, type: 'action', name: 'spawn', payload: { child: `${worker}/killPod`, src: 'killPod', input: { gracePeriodSeconds: 2 } } });
    const texts = (r: Records) => killsFamily(r.history()).map((l) => [l.text, l.cites]);

    const atStart = new Records();
    spawnWorker(atStart, { pod: deleting });
    spawnKill(atStart, 110);
    expect(texts(atStart)).toEqual([['kill requested: the pod was deleted through the API (grace period 30s)', [1]]]);

    const updated = new Records();
    spawnWorker(updated, { pod: { metadata: { name: 'web', namespace: 'default', uid: UID } } });
    updated.add(200, { actor: worker, type: 'event', name: 'pod.spec.updated', payload: { pod: deleting } });
    spawnKill(updated, 200);
    expect(texts(updated)).toEqual([['kill requested: the pod was deleted through the API (grace period 30s)', [2]]]);

    const orphan = new Records();
    spawnWorker(orphan, { pod: { metadata: { uid: UID } }, runtimeOnly: { reason: 'orphaned', gracePeriodSeconds: 2 } });
    spawnKill(orphan, 110);
    expect(texts(orphan)).toEqual([['kill requested: orphaned: the pod is only in the runtime (grace period 2s)', [1]]]);

    const deadline = new Records();
    spawnKill(deadline, 300);
    killDone(deadline, 310, false, []);
    spawnKill(deadline, 400);
    expect(texts(deadline)).toEqual([
      ['kill started by the pod worker: Pod was active on the node longer than the specified deadline (DeadlineExceeded, grace period 2s)', [1]],
      ['kill failed', [2]],
    ]);
  });
});
