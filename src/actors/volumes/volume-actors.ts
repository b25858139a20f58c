/**
 * The volume manager's and each volume's effects (VOLUME_MANAGER_EFFECTS, VOLUME_EFFECTS) over the
 * volume plugins. Set-up and tear-down reject on failure (the volume machine backs off and reports
 * it); the pod directory effects never reject (their answers name what was kept and why), and log
 * what they kept.
 */
import { fromPromise } from 'xstate';
import type { Logger } from '../../log.js';
import { fromAnsweringPromise } from '../../machines/answering-effect.js';
import type { MountVolumeInput, MountVolumeOutput, UnmountVolumeInput } from '../../machines/volume.machine.js';
import type { CleanupOrphanedPodDirectoriesInput, PodDirectoryOutcome, RemovePodDirectoryInput } from '../../machines/volume-manager.machine.js';
import type { PodDirectoryCleanup, VolumePlugins } from '../../ports/volumes.js';

export function createVolumeActors(plugins: () => VolumePlugins, logger: Logger) {
  const reportKept = (outcome: PodDirectoryCleanup): PodDirectoryOutcome => {
    for (const k of outcome.kept) logger.warn({ podUid: k.podUid, reason: k.reason }, 'Pod directory kept');
    for (const uid of outcome.removed) logger.info({ podUid: uid }, 'Pod directory removed');
    return outcome;
  };
  const failed = (podUids: string[], error: unknown): PodDirectoryOutcome =>
    reportKept({ removed: [], kept: podUids.map((podUid) => ({ podUid, reason: (error as Error).message })) });
  return {
    mountVolume: fromPromise<MountVolumeOutput, MountVolumeInput>(({ input }) => plugins().setUp(input.pod, input.volumeName, { remount: input.remount })),
    unmountVolume: fromPromise<void, UnmountVolumeInput>(({ input }) => plugins().tearDown(input.podUid, input.volumeName, input.plugin, input.persistent)),
    removePodDirectory: fromAnsweringPromise<PodDirectoryOutcome, RemovePodDirectoryInput>((input) =>
      plugins().removePodDirectory(input.podUid).then(reportKept, (error: unknown) => failed([input.podUid], error))),
    cleanupOrphanedPodDirectories: fromAnsweringPromise<PodDirectoryOutcome, CleanupOrphanedPodDirectoriesInput>((input) =>
      plugins().cleanupOrphanedPodDirectories(input.keep).then(reportKept, (error: unknown) => failed(['*'], error))),
  };
}
