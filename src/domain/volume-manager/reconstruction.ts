/**
 * Volumes found on disk at start (Go: the reconciler's reconstructVolumes, then unmountVolumes and
 * unmountDetachDevices for those no pod wants any more). The CSI pod volumes read back from their
 * vol_data.json enter the actual state as uncertain. Nothing is torn down before every pod source
 * was seen (Go's readyToUnmount): then the volumes of pods no source has are torn down, each
 * retried with the volume operations' back-off while it fails, and at once when its driver
 * registers, where Go waits the back-off out (a driver that comes back would otherwise wait up to
 * 2 min 2 s). A volume of a pod still known waits: a pod that syncs takes its volumes over (its own
 * volumes set them up again and tear them down), a pod released without having synced (an orphan
 * being killed, a terminal pod) has them torn down then.
 */
import { reconstructedVolumeId } from '../actor-ids.js';
import { csiUniqueVolumeName } from '../csi/attached-volumes.js';
import type { PodVolData } from '../csi/vol-data.js';
import { volumeBackoff, volumeBackoffMs } from '../volumes/pod-volumes.js';
import type { VolumeDecision, VolumeManagerCommand } from './commands.js';
import type { VolumeManagerState } from './state.js';

export interface ReconstructedVolume {
  podUid: string;
  /** Its directory under `volumes/kubernetes.io~csi`: the PV's name, or the inline volume's. */
  dirName: string;
  driverName: string;
  volumeHandle: string;
  /**
   * A PV's (the Persistent lifecycle) unique name, reported in `volumesInUse` until the volume is
   * unpublished and unstaged; an inline volume is never attached, so it has none.
   */
  uniqueVolumeName?: string;
}

/** `uncertain` until every source was seen; `unmounting` while its teardown runs; `backingOff` while its next one waits out the back-off. */
export type ReconstructedPhase = 'uncertain' | 'unmounting' | 'backingOff';

export interface ReconstructedEntry {
  volume: ReconstructedVolume;
  phase: ReconstructedPhase;
  failures: number;
  error: string | null;
  /** Its driver registered while a teardown ran: that teardown failing is retried at once. */
  driverRegistered?: boolean;
  /** Its pod is gone: the pod's directory is cleaned up once its last reconstructed volume is down. */
  sweepAfter?: boolean;
}

/** What the scan read from one pod volume's vol_data.json. */
export function reconstructedCsiVolume(podUid: string, dirName: string, data: PodVolData): ReconstructedVolume {
  return {
    podUid, dirName, driverName: data.driverName, volumeHandle: data.volumeHandle,
    ...(data.volumeLifecycleMode === 'Persistent' ? { uniqueVolumeName: csiUniqueVolumeName(data.driverName, data.volumeHandle) } : {}),
  };
}

type Entries = Record<string, ReconstructedEntry>;

const withEntries = (state: VolumeManagerState, entries: Entries): VolumeManagerState => ({ ...state, reconstruction: entries });

/** The scan answered: every volume found is uncertain; a sweep that waited for it runs now. */
export function decideReconstructed(state: VolumeManagerState, volumes: readonly ReconstructedVolume[], scanId: string): VolumeDecision {
  const entries: Entries = {};
  for (const volume of volumes) entries[reconstructedVolumeId(volume.podUid, volume.dirName)] = { volume, phase: 'uncertain', failures: 0, error: null };
  const { sweepWaiting, ...rest } = withEntries(state, entries);
  const stop: VolumeManagerCommand = { kind: 'stop', id: scanId };
  if (sweepWaiting === undefined) return { state: rest, commands: [stop] };
  const swept = decideOrphanSweep(rest, sweepWaiting);
  return { state: swept.state, commands: [stop, ...swept.commands] };
}

/**
 * Housekeeping's sweep (Go's cleanupOrphanedPodDirs), once the scan is in: the uncertain volumes of
 * pods nobody knows are torn down, those of known pods wait for them; every pod the sources have,
 * this manager knows or a reconstructed volume still holds keeps its directory. Before the scan
 * answers the sweep waits, so an orphan's volume is never torn down twice at once.
 */
export function decideOrphanSweep(state: VolumeManagerState, knownPodUids: readonly string[]): VolumeDecision {
  if (state.reconstruction === undefined) return { state: { ...state, sweepWaiting: [...knownPodUids] }, commands: [] };
  const known = new Set([...knownPodUids, ...Object.keys(state.pods)]);
  const entries: Entries = {};
  const commands: VolumeManagerCommand[] = [];
  for (const [id, entry] of Object.entries(state.reconstruction)) {
    if (entry.phase !== 'uncertain' || known.has(entry.volume.podUid)) entries[id] = entry;
    else {
      entries[id] = { ...entry, phase: 'unmounting', sweepAfter: true };
      commands.push({ kind: 'tearDownReconstructed', id, volume: entry.volume, delayMs: 0 });
    }
  }
  const held = Object.values(entries).map((e) => e.volume.podUid);
  const keep = [...new Set([...known, ...held])].sort();
  commands.push({ kind: 'sweepOrphanedPodDirectories', sweep: state.sweeps, keep });
  return { state: { ...withEntries(state, entries), sweeps: state.sweeps + 1 }, commands };
}

/**
 * A teardown answered. Done: the volume leaves the actual state, and its pod's directory is swept
 * once no reconstructed volume holds it. Failed: tried again by a teardown that first waits out the
 * back-off (its wait is the effect's, so the journal has its end as an answer), or at once when its
 * driver registered meanwhile.
 */
export function decideReconstructedAnswered(
  state: VolumeManagerState, id: string, error: string | undefined, backoff: { initialMs: number; maxMs: number } = volumeBackoff,
): VolumeDecision {
  const stop: VolumeManagerCommand = { kind: 'stop', id };
  const entry = state.reconstruction?.[id];
  if (!state.reconstruction || !entry) return { state, commands: [stop] };
  if (error !== undefined) {
    const failures = entry.failures + 1;
    const next: ReconstructedEntry = { volume: entry.volume, phase: 'backingOff', failures, error, ...(entry.sweepAfter ? { sweepAfter: true } : {}) };
    return {
      state: withEntries(state, { ...state.reconstruction, [id]: next }),
      commands: [stop, { kind: 'tearDownReconstructed', id, volume: entry.volume, delayMs: entry.driverRegistered ? 0 : volumeBackoffMs(failures, backoff) }],
    };
  }
  const { [id]: _done, ...entries } = state.reconstruction;
  const { podUid } = entry.volume;
  const stillHeld = Object.values(entries).some((e) => e.volume.podUid === podUid);
  if (stillHeld || state.pods[podUid] || !entry.sweepAfter) return { state: withEntries(state, entries), commands: [stop] };
  return {
    state: { ...withEntries(state, entries), sweeps: state.sweeps + 1 },
    commands: [stop, { kind: 'sweepOrphanedPodDirectories', sweep: state.sweeps, keep: [], only: [podUid] }],
  };
}

/** A CSI driver registered: its volumes backing off are torn down now (their waiting teardowns replaced), a running teardown that fails is retried at once. */
export function decideDriverRegistered(state: VolumeManagerState, driverName: string): VolumeDecision {
  if (!state.reconstruction) return { state, commands: [] };
  const entries: Entries = { ...state.reconstruction };
  const commands: VolumeManagerCommand[] = [];
  let changed = false;
  for (const [id, entry] of Object.entries(state.reconstruction)) {
    if (entry.volume.driverName !== driverName) continue;
    if (entry.phase === 'backingOff') {
      entries[id] = { ...entry, phase: 'unmounting' };
      commands.push({ kind: 'stop', id }, { kind: 'tearDownReconstructed', id, volume: entry.volume, delayMs: 0 });
      changed = true;
    } else if (entry.phase === 'unmounting' && !entry.driverRegistered) {
      entries[id] = { ...entry, driverRegistered: true };
      changed = true;
    }
  }
  return { state: changed ? withEntries(state, entries) : state, commands };
}

/** A pod syncs for the first time: its own volumes take over those found on disk for it (Go: the desired state has them). */
export function takeOverReconstructed(state: VolumeManagerState, podUid: string): VolumeManagerState {
  if (!state.reconstruction) return state;
  const entries = Object.entries(state.reconstruction);
  const kept = entries.filter(([, e]) => e.volume.podUid !== podUid || e.phase !== 'uncertain');
  return kept.length === entries.length ? state : withEntries(state, Object.fromEntries(kept));
}

/**
 * A pod released that never synced (an orphan killed, a terminal pod): its volumes found on disk are
 * torn down now; with `removeDirectory`, its directory is cleaned up after the last one (`held`:
 * some are still to go, so it is not removed now).
 */
export function releaseReconstructed(state: VolumeManagerState, podUid: string, removeDirectory: boolean): VolumeDecision & { held: boolean } {
  if (!state.reconstruction) return { state, commands: [], held: false };
  const entries: Entries = { ...state.reconstruction };
  const commands: VolumeManagerCommand[] = [];
  let held = false;
  for (const [id, entry] of Object.entries(state.reconstruction)) {
    if (entry.volume.podUid !== podUid) continue;
    held = true;
    const sweepAfter = entry.sweepAfter || removeDirectory;
    if (entry.phase === 'uncertain') {
      entries[id] = { ...entry, phase: 'unmounting', ...(sweepAfter ? { sweepAfter } : {}) };
      commands.push({ kind: 'tearDownReconstructed', id, volume: entry.volume, delayMs: 0 });
    } else if (sweepAfter && !entry.sweepAfter) {
      entries[id] = { ...entry, sweepAfter };
    }
  }
  return { state: held ? withEntries(state, entries) : state, commands, held };
}
