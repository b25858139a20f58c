import { describe, expect, it } from 'vitest';
import { reconstructedVolumeId } from '../../../src/domain/actor-ids.js';
import type { PodVolData } from '../../../src/domain/csi/vol-data.js';
import {
  decideDriverRegistered, decideOrphanSweep, decideReconstructed, decideReconstructedAnswered, reconstructedCsiVolume, type ReconstructedVolume,
} from '../../../src/domain/volume-manager/reconstruction.js';
import { decidePodSync } from '../../../src/domain/volume-manager/pod-sync.js';
import { decideRelease } from '../../../src/domain/volume-manager/release.js';
import type { VolumeManagerState } from '../../../src/domain/volume-manager/state.js';
import type { Pod } from '../../../src/domain/pod/types.js';

const D = 'csi-mock.lab.k8s.io';
const volData = (mode: PodVolData['volumeLifecycleMode']): PodVolData => ({ specVolID: 'pv-1', volumeHandle: '2', driverName: D, nodeName: 'n', attachmentID: 'csi-x', volumeLifecycleMode: mode });
const orphanPv = reconstructedCsiVolume('gone', 'pv-1', volData('Persistent'));
const orphanInline = { podUid: 'gone', dirName: 'scratch', driverName: 'other.example.com', volumeHandle: 'csi-1f' } satisfies ReconstructedVolume;
const keptPv = reconstructedCsiVolume('alive', 'pv-1', volData('Persistent'));
const idOf = (v: ReconstructedVolume) => reconstructedVolumeId(v.podUid, v.dirName);
const start: VolumeManagerState = { pods: {}, sweeps: 0 };
const SCAN = 'reconstructVolumes';

/** Scanned, then swept with `alive` known: the orphan's two volumes are being torn down. */
function sweptState(): VolumeManagerState {
  return decideOrphanSweep(decideReconstructed(start, [orphanPv, orphanInline, keptPv], SCAN).state, ['alive']).state;
}

describe('the volumes found on disk at start', () => {
  it('name a PV by its unique volume name and an inline volume by none', () => {
    expect(orphanPv).toEqual({ podUid: 'gone', dirName: 'pv-1', driverName: D, volumeHandle: '2', uniqueVolumeName: `kubernetes.io/csi/${D}^2` });
    expect(reconstructedCsiVolume('gone', 'scratch', volData('Ephemeral'))).not.toHaveProperty('uniqueVolumeName');
  });

  it('are uncertain until every source was seen: nothing is torn down on the scan alone', () => {
    const { state, commands } = decideReconstructed(start, [orphanPv], SCAN);
    expect(commands).toEqual([{ kind: 'stop', id: SCAN }]);
    expect(state.reconstruction).toEqual({ [idOf(orphanPv)]: { volume: orphanPv, phase: 'uncertain', failures: 0, error: null } });
  });

  it('make a sweep asked before the scan answered wait for it, then run with it', () => {
    const waiting = decideOrphanSweep(start, ['alive']);
    expect(waiting).toEqual({ state: { ...start, sweepWaiting: ['alive'] }, commands: [] });
    const { state, commands } = decideReconstructed(waiting.state, [orphanPv, keptPv], SCAN);
    expect(commands).toEqual([
      { kind: 'stop', id: SCAN },
      { kind: 'tearDownReconstructed', id: idOf(orphanPv), volume: orphanPv, delayMs: 0 },
      { kind: 'sweepOrphanedPodDirectories', sweep: 0, keep: ['alive', 'gone'] },
    ]);
    expect(state).not.toHaveProperty('sweepWaiting');
    expect(state.sweeps).toBe(1);
  });

  it('of pods nobody knows are torn down at the sweep, which keeps their directories; those of known pods wait', () => {
    const scanned = decideReconstructed(start, [orphanPv, orphanInline, keptPv], SCAN).state;
    const withPod = decidePodSync(scanned, { metadata: { name: 'p', namespace: 'ns', uid: 'managed' }, spec: { containers: [] } } as Pod).state;
    const { state, commands } = decideOrphanSweep(withPod, ['alive']);
    expect(commands).toEqual([
      { kind: 'tearDownReconstructed', id: idOf(orphanPv), volume: orphanPv, delayMs: 0 },
      { kind: 'tearDownReconstructed', id: idOf(orphanInline), volume: orphanInline, delayMs: 0 },
      { kind: 'sweepOrphanedPodDirectories', sweep: 0, keep: ['alive', 'gone', 'managed'] },
    ]);
    expect(Object.keys(state.reconstruction ?? {}).sort()).toEqual([idOf(orphanPv), idOf(orphanInline), idOf(keptPv)].sort());
    expect(state.reconstruction?.[idOf(orphanPv)]).toMatchObject({ phase: 'unmounting', sweepAfter: true });
    expect(state.reconstruction?.[idOf(keptPv)]?.phase).toBe('uncertain');
  });

  it('back off after each failed teardown: the next one waits 500 ms, doubling up to the cap', () => {
    let state = sweptState();
    const delays: number[] = [];
    for (let i = 0; i < 10; i++) {
      const failed = decideReconstructedAnswered(state, idOf(orphanPv), 'driver not found');
      const [stop, retry] = failed.commands;
      expect(stop).toEqual({ kind: 'stop', id: idOf(orphanPv) });
      expect(retry).toMatchObject({ kind: 'tearDownReconstructed', id: idOf(orphanPv), volume: orphanPv });
      delays.push(retry && 'delayMs' in retry ? retry.delayMs : -1);
      expect(failed.state.reconstruction?.[idOf(orphanPv)]).toMatchObject({ phase: 'backingOff', failures: i + 1, error: 'driver not found' });
      state = failed.state;
    }
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 32_000, 64_000, 122_000, 122_000]);
  });

  it('are torn down at once when their driver registers, the waiting teardown replaced; other drivers\' volumes wait', () => {
    const failedBoth = [idOf(orphanPv), idOf(orphanInline)].reduce((s, id) => decideReconstructedAnswered(s, id, 'not registered').state, sweptState());
    const { state, commands } = decideDriverRegistered(failedBoth, D);
    expect(commands).toEqual([
      { kind: 'stop', id: idOf(orphanPv) },
      { kind: 'tearDownReconstructed', id: idOf(orphanPv), volume: orphanPv, delayMs: 0 },
    ]);
    expect(state.reconstruction?.[idOf(orphanPv)]?.phase).toBe('unmounting');
    expect(state.reconstruction?.[idOf(orphanInline)]?.phase).toBe('backingOff');
    expect(decideDriverRegistered(state, 'unknown.example.com')).toEqual({ state, commands: [] });
  });

  it('whose teardown was running when the driver registered are retried at once if it fails, then back off again', () => {
    const registered = decideDriverRegistered(sweptState(), D);
    expect(registered.commands).toEqual([]);
    const failed = decideReconstructedAnswered(registered.state, idOf(orphanPv), 'not registered');
    expect(failed.commands).toEqual([{ kind: 'stop', id: idOf(orphanPv) }, { kind: 'tearDownReconstructed', id: idOf(orphanPv), volume: orphanPv, delayMs: 0 }]);
    expect(decideReconstructedAnswered(failed.state, idOf(orphanPv), 'x').commands).toContainEqual({ kind: 'tearDownReconstructed', id: idOf(orphanPv), volume: orphanPv, delayMs: 1000 });
  });

  it('leave the actual state once torn down; the pod\'s directory is swept once its last one is down', () => {
    const one = decideReconstructedAnswered(sweptState(), idOf(orphanPv), undefined);
    expect(one.commands).toEqual([{ kind: 'stop', id: idOf(orphanPv) }]);
    expect(one.state.reconstruction).not.toHaveProperty(idOf(orphanPv));
    const last = decideReconstructedAnswered(one.state, idOf(orphanInline), undefined);
    expect(last.commands).toEqual([{ kind: 'stop', id: idOf(orphanInline) }, { kind: 'sweepOrphanedPodDirectories', sweep: 1, keep: [], only: ['gone'] }]);
    expect(Object.keys(last.state.reconstruction ?? {})).toEqual([idOf(keptPv)]);
    expect(last.state.sweeps).toBe(2);
  });

  it('an answer for no known volume only stops its effect', () => {
    const state = sweptState();
    expect(decideReconstructedAnswered(state, 'reconstructedVolume:x:y', undefined)).toEqual({ state, commands: [{ kind: 'stop', id: 'reconstructedVolume:x:y' }] });
  });

  it('of a known pod are taken over by the pod\'s own volumes when it first syncs', () => {
    const state = sweptState();
    const synced = decidePodSync(state, { metadata: { name: 'p', namespace: 'ns', uid: 'alive' }, spec: { containers: [] } } as Pod).state;
    expect(synced.reconstruction).not.toHaveProperty(idOf(keptPv));
    expect(Object.keys(synced.reconstruction ?? {})).toHaveLength(2);
  });

  it('of a known pod released without ever syncing (an orphan killed) are torn down then, and its directory cleaned up after the last', () => {
    const released = decideRelease(sweptState(), 'alive', true);
    expect(released.commands).toEqual([{ kind: 'tearDownReconstructed', id: idOf(keptPv), volume: keptPv, delayMs: 0 }]);
    const done = decideReconstructedAnswered(released.state, idOf(keptPv), undefined);
    expect(done.commands).toEqual([{ kind: 'stop', id: idOf(keptPv) }, { kind: 'sweepOrphanedPodDirectories', sweep: 1, keep: [], only: ['alive'] }]);
  });

  it('of a terminal pod released to stay are torn down, and its directory is left', () => {
    const released = decideRelease(sweptState(), 'alive', false);
    expect(released.commands).toEqual([{ kind: 'tearDownReconstructed', id: idOf(keptPv), volume: keptPv, delayMs: 0 }]);
    expect(decideReconstructedAnswered(released.state, idOf(keptPv), undefined).commands).toEqual([{ kind: 'stop', id: idOf(keptPv) }]);
    // A pod with nothing found on disk and nothing known is only removed, as before.
    expect(decideRelease(sweptState(), 'other', true).commands).toEqual([{ kind: 'removePodDirectory', podUid: 'other' }]);
  });
});
