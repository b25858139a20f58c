import { describe, expect, it } from 'vitest';
import { volumesFamily } from '../../../../src/domain/explain/families/volumes.js';
import { Records, UID } from '../records.js';

const changed = (r: Records, t: number, unmounted: string[], failedToProcess?: unknown[]) =>
  r.add(t, { actor: `pod:${UID}`, type: 'event', name: 'pod.volumes.changed', source: 'volumeManager', payload: { unmounted, ...(failedToProcess ? { failedToProcess } : {}) } });
const emitted = (r: Records, t: number, event: Record<string, unknown>) =>
  r.add(t, { actor: 'volumeManager', type: 'action', name: 'emit', payload: { event: { pod: { namespace: 'default', name: 'web', uid: UID }, ...event } } });

describe('volumesFamily', () => {
  it('tells a wait that ended with nothing failing in one line', () => {
    const r = new Records();
    changed(r, 10, ['a', 'b']);
    changed(r, 20, ['b']);
    changed(r, 30, []);
    changed(r, 40, []);
    expect(volumesFamily(r.history()).map((l) => [l.t, l.text, l.cites])).toEqual([[30, 'volumes mounted: a, b', [1, 3]]]);
  });

  it('tells which volumes were waited on and why, then the mount', () => {
    const r = new Records();
    changed(r, 10, ['cfg', 'token']);
    emitted(r, 11, { type: 'volume.mount.failed', volumeName: 'cfg', message: 'configmap "late" not found' });
    emitted(r, 12, { type: 'volume.mount.failed', volumeName: 'drv', message: 'x', eventText: 'MountVolume.MountDevice failed for volume "drv" : driver name d not found' });
    changed(r, 50, []);
    expect(volumesFamily(r.history()).map((l) => [l.text, l.cites])).toEqual([
      ['waiting for volumes: cfg, token', [1]],
      ['FailedMount: MountVolume.SetUp failed for volume "cfg" : configmap "late" not found', [2]],
      ['FailedMount: MountVolume.MountDevice failed for volume "drv" : driver name d not found', [3]],
      ['volumes mounted: cfg, token', [1, 4]],
    ]);
  });

  it('tells a claim that cannot be processed, a wait that ran out, and one still on when the log ends', () => {
    const r = new Records();
    changed(r, 10, ['data'], [{ volumeName: 'data', message: 'PVC default/data is not bound' }]);
    emitted(r, 120_010, { type: 'volume.wait.timedOut', message: 'Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data]: timed out waiting for the condition' });
    changed(r, 130_000, ['data']);
    expect(volumesFamily(r.history()).map((l) => l.text)).toEqual([
      'waiting for volumes: data',
      'volume data cannot be processed: PVC default/data is not bound',
      'FailedMount: Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data]: timed out waiting for the condition',
      'waiting for volumes: data (still waiting when the log ends)',
    ]);
  });
});
