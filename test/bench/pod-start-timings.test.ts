import { describe, expect, it } from 'vitest';
import { podStartTimings, relistTimings } from '../../bench/pod-start-timings.js';
import type { JournalRecord } from '../../src/domain/journal/record.js';

let seq = 0;
const rec = (t: number, actor: string, type: JournalRecord['type'], name: string, payload: unknown = {}): JournalRecord => ({
  seq: ++seq, t, wall: new Date(1_000_000 + t).toISOString(), actor, kind: 'input', type, name, source: null, payload,
});

const podSpec = (uid: string, containers: string[]) => ({ metadata: { uid, name: `${uid}-node` }, spec: { containers: containers.map((name) => ({ name })) } });
const step = (s: string, target: string, durationMs: number, ok = true) => ({ step: s, target, ok, durationMs });
const synced = (t: number, uid: string, steps: unknown[]) =>
  rec(t, `pod:${uid}`, 'event', 'xstate.done.actor.syncPod', { output: { podUid: uid, steps } });

describe('podStartTimings', () => {
  it('measures from the first snapshot listing a pod to the sync that started its containers, minus the steps', () => {
    const records = [
      rec(100, 'podConfig', 'event', 'pod.source.snapshot', { pods: [podSpec('a', ['main', 'side'])] }),
      rec(101, 'pod:a/syncPod', 'actor', 'syncPod'),
      synced(160, 'a', [step('computePodActions', 'default/a', 5), step('createPodSandbox', 'default/a', 20), step('startContainer', 'main', 25), step('startContainer', 'side', 4)]),
    ];
    const [a] = podStartTimings(records);
    expect(a).toMatchObject({ uid: 'a', seenAtMs: 100, startedAtMs: 160, totalMs: 60, runtimeMs: 54, kubeletMs: 6 });
    expect(a!.startedWallMs).toBe(1_000_160);
  });

  it('waits for a later sync when a container failed to start, counting the status read in between', () => {
    const records = [
      rec(0, 'podConfig', 'event', 'pod.source.snapshot', { pods: [podSpec('b', ['main'])] }),
      synced(30, 'b', [step('createPodSandbox', 'default/b', 10), step('startContainer', 'main', 15, false)]),
      rec(31, 'pod:b/getPodStatus', 'actor', 'getPodStatus'),
      rec(39, 'pod:b', 'event', 'xstate.done.actor.getPodStatus'),
      synced(70, 'b', [step('computePodActions', 'default/b', 2), step('startContainer', 'main', 20)]),
      synced(90, 'b', [step('computePodActions', 'default/b', 3)]),
    ];
    expect(podStartTimings(records)).toEqual([
      expect.objectContaining({ uid: 'b', totalMs: 70, runtimeMs: 10 + 15 + 8 + 2 + 20, kubeletMs: 70 - 55 }),
    ]);
  });

  it('keeps the first time a pod was seen when later snapshots list it again, and leaves out pods never started', () => {
    const records = [
      rec(10, 'podConfig', 'event', 'pod.source.snapshot', { pods: [podSpec('c', ['main'])] }),
      rec(50, 'podConfig', 'event', 'pod.source.snapshot', { pods: [podSpec('c', ['main']), podSpec('d', ['main'])] }),
      synced(80, 'c', [step('startContainer', 'main', 30)]),
    ];
    const timings = podStartTimings(records);
    expect(timings.map((p) => [p.uid, p.totalMs])).toEqual([['c', 70]]);
  });
});

describe('relistTimings', () => {
  it('reads each PLEG relist result with its duration and pod count, none for an unchanged answer', () => {
    const records = [
      rec(5, 'pleg', 'event', 'xstate.done.actor.relist', { output: { durationMs: 7, pods: [{}, {}] } }),
      rec(6, 'pleg', 'state', 'pleg', { value: 'waiting' }),
      rec(1005, 'pleg', 'event', 'xstate.done.actor.relist', { output: { durationMs: 3, pods: [] } }),
      rec(2005, 'pleg', 'event', 'xstate.done.actor.relist', { output: { durationMs: 4, digest: 'd', unchanged: true } }),
    ];
    expect(relistTimings(records)).toEqual([
      { atMs: 5, wallMs: 1_000_005, durationMs: 7, pods: 2 },
      { atMs: 1005, wallMs: 1_001_005, durationMs: 3, pods: 0 },
      { atMs: 2005, wallMs: 1_002_005, durationMs: 4, pods: null },
    ]);
  });
});
