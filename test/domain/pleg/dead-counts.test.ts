import { describe, expect, it } from 'vitest';
import { deadCounts } from '../../../src/domain/pleg/dead-counts.js';
import type { PlegEvent } from '../../../src/domain/pleg/diff.js';
import type { RelistContainer, RelistPod } from '../../../src/domain/pleg/relist.js';

const c = (id: string, name: string, state: RelistContainer['state']): RelistContainer => ({ id, name, state });
const ev = (podUid: string, type: PlegEvent['type'], containerId: string): PlegEvent => ({ podUid, type, containerId });

describe('deadCounts', () => {
  const pods: RelistPod[] = [
    { uid: 'a', sandboxes: [{ id: 's1', state: 'notReady' }, { id: 's2', state: 'ready' }], containers: [c('1', 'web', 'exited'), c('2', 'web', 'exited'), c('3', 'log', 'exited'), c('4', 'web', 'running')] },
    { uid: 'b', sandboxes: [{ id: 's3', state: 'ready' }], containers: [c('5', 'web', 'running')] },
  ];

  it('counts, per pod with a death or a removal, its sandboxes, its exited containers, and the exited of each died container\'s name', () => {
    expect(deadCounts(pods, [ev('a', 'ContainerDied', '2'), ev('a', 'ContainerDied', '3'), ev('b', 'ContainerStarted', '5')])).toEqual({
      a: { sandboxes: 2, exited: 3, exitedOfName: { 2: 2, 3: 1 } },
    });
  });

  it('a died sandbox, or a container already gone, names no container; a pod the runtime no longer has counts nothing', () => {
    expect(deadCounts(pods, [ev('a', 'ContainerDied', 's1'), ev('a', 'ContainerDied', '9'), ev('a', 'ContainerRemoved', '9'), ev('x', 'ContainerRemoved', 's9')])).toEqual({
      a: { sandboxes: 2, exited: 3, exitedOfName: {} },
      x: { sandboxes: 0, exited: 0, exitedOfName: {} },
    });
  });

  it('none for a relist with no death or removal', () => {
    expect(deadCounts(pods, [ev('b', 'ContainerStarted', '5')])).toEqual({});
  });
});
