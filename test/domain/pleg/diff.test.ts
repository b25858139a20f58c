import { describe, expect, it } from 'vitest';
import { diffRelists, reportableEvents, type PlegEvent } from '../../../src/domain/pleg/diff.js';
import type { RelistContainer, RelistPod, RelistSandbox } from '../../../src/domain/pleg/relist.js';

const c = (id: string, state: RelistContainer['state']): RelistContainer => ({ id, name: `n-${id}`, state });
const sb = (id: string, state: RelistSandbox['state']): RelistSandbox => ({ id, state });
const pod = (uid: string, containers: RelistContainer[], sandboxes: RelistSandbox[] = []): RelistPod => ({ uid, containers, sandboxes });
const ev = (podUid: string, type: PlegEvent['type'], containerId: string): PlegEvent => ({ podUid, type, containerId });

describe('diffRelists', () => {
  it.each([
    { name: 'nothing changed', old: [pod('a', [c('1', 'running')])], now: [pod('a', [c('1', 'running')])], events: [] },
    { name: 'a new running container', old: [], now: [pod('a', [c('1', 'running')])], events: [ev('a', 'ContainerStarted', '1')] },
    { name: 'a running container exited', old: [pod('a', [c('1', 'running')])], now: [pod('a', [c('1', 'exited')])], events: [ev('a', 'ContainerDied', '1')] },
    { name: 'a created container (unknown to the PLEG)', old: [], now: [pod('a', [c('1', 'created')])], events: [ev('a', 'ContainerChanged', '1')] },
    { name: 'created → running', old: [pod('a', [c('1', 'created')])], now: [pod('a', [c('1', 'running')])], events: [ev('a', 'ContainerStarted', '1')] },
    { name: 'an exited container was removed', old: [pod('a', [c('1', 'exited')])], now: [pod('a', [])], events: [ev('a', 'ContainerRemoved', '1')] },
    { name: 'a running container vanished', old: [pod('a', [c('1', 'running')])], now: [], events: [ev('a', 'ContainerDied', '1'), ev('a', 'ContainerRemoved', '1')] },
    { name: 'a new exited container', old: [], now: [pod('a', [c('1', 'exited')])], events: [ev('a', 'ContainerDied', '1')] },
    { name: 'a sandbox became ready', old: [], now: [pod('a', [], [sb('s', 'ready')])], events: [ev('a', 'ContainerStarted', 's')] },
    { name: 'a sandbox stopped', old: [pod('a', [], [sb('s', 'ready')])], now: [pod('a', [], [sb('s', 'notReady')])], events: [ev('a', 'ContainerDied', 's')] },
    { name: 'a stopped sandbox was removed', old: [pod('a', [], [sb('s', 'notReady')])], now: [], events: [ev('a', 'ContainerRemoved', 's')] },
    {
      name: 'several pods, in uid order, containers before sandboxes',
      old: [pod('b', [c('2', 'running')])],
      now: [pod('b', [c('2', 'exited'), c('3', 'running')]), pod('a', [c('1', 'running')], [sb('s', 'ready')])],
      events: [ev('a', 'ContainerStarted', '1'), ev('a', 'ContainerStarted', 's'), ev('b', 'ContainerDied', '2'), ev('b', 'ContainerStarted', '3')],
    },
  ])('$name', ({ old, now, events }) => {
    expect(diffRelists(old, now)).toEqual(events);
  });

  it('drops ContainerChanged from what is reported, as Go does', () => {
    const events = diffRelists([], [pod('a', [c('1', 'created'), c('2', 'running')])]);
    expect(reportableEvents(events)).toEqual([ev('a', 'ContainerStarted', '2')]);
  });
});
