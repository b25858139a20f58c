import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/domain/pod/types.js';
import { decidePodSync } from '../../../src/domain/volume-manager/pod-sync.js';
import { decideDirectoryAnswered, decideRelease } from '../../../src/domain/volume-manager/release.js';
import { decideOrphanSweep } from '../../../src/domain/volume-manager/reconstruction.js';
import type { VolumeManagerState } from '../../../src/domain/volume-manager/state.js';
import { decideVolumeCrashed, decideVolumeMounted, decideVolumeMountFailed, decideVolumeUnmounted } from '../../../src/domain/volume-manager/volume-reports.js';

const pod: Pod = {
  metadata: { name: 'web', namespace: 'default', uid: 'u1' },
  spec: {
    containers: [{ name: 'main', image: 'busybox', volumeMounts: [{ name: 'cfg', mountPath: '/cfg' }, { name: 'scratch', mountPath: '/s' }, { name: 'odd', mountPath: '/o' }] }],
    volumes: [{ name: 'cfg', configMap: { name: 'c' } }, { name: 'scratch', emptyDir: {} }, { name: 'odd', gcePersistentDisk: { pdName: 'x' } } as never],
  },
};
// The scan of the disk answered, finding nothing.
const empty: VolumeManagerState = { pods: {}, sweeps: 0, reconstruction: {} };

describe('the volume manager decisions', () => {
  it('a pod seen first: an actor per mountable volume, a failure for the one no plugin mounts, the worker told what is unmounted', () => {
    const { state, commands } = decidePodSync(empty, pod);
    expect(commands.map((c) => c.kind)).toEqual(['startVolume', 'startVolume', 'emit', 'tellWorker']);
    expect(commands[2]).toMatchObject({ event: { type: 'volume.mount.failed', volumeName: 'odd', message: expect.stringContaining('no volume plugin matched') } });
    expect(commands[3]).toEqual({ kind: 'tellWorker', podUid: 'u1', unmounted: ['cfg', 'odd', 'scratch'] });
    expect(state.pods.u1).toMatchObject({ waiting: true, volumes: { cfg: { state: 'mounting' }, odd: { state: 'unsupported' } } });
  });

  it('a known pod that syncs again has its volumes set up again, and the worker hears the current list', () => {
    const first = decidePodSync(empty, pod).state;
    const { commands } = decidePodSync(first, pod);
    expect(commands).toEqual([
      { kind: 'tellVolume', podUid: 'u1', volumeName: 'cfg', message: { type: 'volume.remount', pod } },
      { kind: 'tellVolume', podUid: 'u1', volumeName: 'scratch', message: { type: 'volume.remount', pod } },
      { kind: 'tellWorker', podUid: 'u1', unmounted: ['cfg', 'odd', 'scratch'] },
    ]);
  });

  it('the waiting worker hears each mount; a mount failure is reported and kept; a recovered remount drops its error', () => {
    let state = decidePodSync(empty, pod).state;
    const report = { podUid: 'u1', volumeName: 'cfg', hostPath: '/var/lib/kubelet/pods/u1/volumes/kubernetes.io~configmap/cfg', changed: true };
    const mounted = decideVolumeMounted(state, report);
    expect(mounted.commands).toEqual([{ kind: 'tellWorker', podUid: 'u1', unmounted: ['odd', 'scratch'] }]);
    state = mounted.state;
    const failed = decideVolumeMountFailed(state, 'u1', 'cfg', 'configmap "c" not found');
    expect(failed.commands).toEqual([{ kind: 'emit', event: { type: 'volume.mount.failed', pod: { namespace: 'default', name: 'web', uid: 'u1' }, volumeName: 'cfg', message: 'configmap "c" not found' } }]);
    expect(failed.state.pods.u1?.volumes.cfg).toMatchObject({ state: 'mounted', error: 'configmap "c" not found' });
    expect(decideVolumeMounted(failed.state, { ...report, changed: false })).toEqual({ state, commands: [] });
  });

  it('a release tears every volume down, then removes the directory once the last is down', () => {
    const state = decidePodSync(empty, pod).state;
    const released = decideRelease(state, 'u1', true);
    expect(released.commands).toEqual([
      { kind: 'tellVolume', podUid: 'u1', volumeName: 'cfg', message: { type: 'volume.unmount' } },
      { kind: 'tellVolume', podUid: 'u1', volumeName: 'scratch', message: { type: 'volume.unmount' } },
    ]);
    const one = decideVolumeUnmounted(released.state, 'u1', 'cfg', 'volume:u1:cfg');
    expect(one.commands).toEqual([{ kind: 'stop', id: 'volume:u1:cfg' }]);
    const last = decideVolumeUnmounted(one.state, 'u1', 'scratch', 'volume:u1:scratch');
    expect(last.commands).toEqual([{ kind: 'stop', id: 'volume:u1:scratch' }, { kind: 'removePodDirectory', podUid: 'u1' }]);
    expect(decideDirectoryAnswered(last.state, 'podDirectory:u1', 'u1').state.pods).toEqual({});
  });

  it('a terminal pod keeps its released entry, so a late sync mounts nothing; its deletion then removes the directory', () => {
    const state = decidePodSync(empty, { ...pod, spec: { ...pod.spec, volumes: [{ name: 'odd', gcePersistentDisk: { pdName: 'x' } } as never] } }).state;
    const kept = decideRelease(state, 'u1', false);
    expect(kept.commands).toEqual([]);
    expect(decidePodSync(kept.state, pod).commands).toEqual([]);
    expect(decideRelease(kept.state, 'u1', true).commands).toEqual([{ kind: 'removePodDirectory', podUid: 'u1' }]);
  });

  it('a crashed volume actor fails that volume; the sweep keeps every known pod\'s directory', () => {
    const state = decidePodSync(empty, pod).state;
    const crashed = decideVolumeCrashed(state, { id: 'volume:u1:cfg', podUid: 'u1', volumeName: 'cfg', message: 'boom' });
    expect(crashed.commands.map((c) => c.kind)).toEqual(['stop', 'emit']);
    expect(crashed.state.pods.u1?.volumes.cfg).toEqual({ state: 'unsupported', error: 'the kubelet failed to set up volume "cfg": boom' });
    expect(decideOrphanSweep(state, ['u2'])).toEqual({ state: { ...state, sweeps: 1 }, commands: [{ kind: 'sweepOrphanedPodDirectories', sweep: 0, keep: ['u1', 'u2'] }] });
  });
});
