import { describe, expect, it } from 'vitest';
import { viewShowsEvents, type RuntimeEventNote } from '../../../src/domain/pleg/view-shows-events.js';
import type { RuntimeContainerState, RuntimePodStatus } from '../../../src/domain/runtime/pod-status.js';

function view(container: RuntimeContainerState | null, sandboxReady: boolean | null): RuntimePodStatus {
  return {
    uid: 'u1', name: 'p', namespace: 'ns', ips: [],
    sandboxes: sandboxReady === null ? [] : [{ id: 'sb', attempt: 0, ready: sandboxReady, createdAt: '1', ips: [], hasNetworkStatus: true }],
    containers: container === null ? [] : [{
      id: 'c1', name: 'web', state: container, createdAt: '1', startedAt: '1', finishedAt: '0', exitCode: 0, reason: '', message: '',
      image: 'nginx', imageRef: 'sha256:1', hash: 1, restartCount: 0, sandboxId: 'sb',
    }],
  };
}
const ev = (type: string, containerId: string): RuntimeEventNote => ({ type, containerId });

describe('viewShowsEvents', () => {
  it.each([
    { name: 'a started container the view has running', v: view('running', true), events: [ev('ContainerStarted', 'c1')], shows: true },
    { name: 'a started container the view has exited (it went further)', v: view('exited', true), events: [ev('ContainerStarted', 'c1')], shows: true },
    { name: 'a started container the view has only created', v: view('created', true), events: [ev('ContainerStarted', 'c1')], shows: false },
    { name: 'a started container the view does not have', v: view(null, true), events: [ev('ContainerStarted', 'c1')], shows: false },
    { name: 'a started sandbox the view has', v: view(null, true), events: [ev('ContainerStarted', 'sb')], shows: true },
    { name: 'a dead container the view has running', v: view('running', true), events: [ev('ContainerDied', 'c1')], shows: false },
    { name: 'a dead container the view has exited', v: view('exited', true), events: [ev('ContainerDied', 'c1')], shows: true },
    { name: 'a dead sandbox the view has ready', v: view(null, true), events: [ev('ContainerDied', 'sb')], shows: false },
    { name: 'a dead sandbox the view has not ready', v: view(null, false), events: [ev('ContainerDied', 'sb')], shows: true },
    { name: 'a removal, even of what the view lacks', v: view(null, null), events: [ev('ContainerRemoved', 'c1')], shows: false },
    { name: 'every event shown', v: view('running', true), events: [ev('ContainerStarted', 'sb'), ev('ContainerStarted', 'c1')], shows: true },
    { name: 'one of two not shown', v: view('running', true), events: [ev('ContainerStarted', 'sb'), ev('ContainerDied', 'c1')], shows: false },
    { name: 'no events (nothing to go by)', v: view('running', true), events: [], shows: false },
    { name: 'no view yet', v: null, events: [ev('ContainerStarted', 'c1')], shows: false },
  ])('$name: $shows', ({ v, events, shows }) => {
    expect(viewShowsEvents(v, events)).toBe(shows);
  });
});
