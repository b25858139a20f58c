/**
 * The volume manager's and each volume's effects (VOLUME_MANAGER_EFFECTS, VOLUME_EFFECTS) over the
 * volume plugins. Set-up and tear-down reject on failure (the volume machine backs off and reports
 * it); the pod directory effects never reject (their answers name what was kept and why), and log
 * what they kept.
 */
import { fromCallback, fromPromise, type AnyEventObject } from 'xstate';
import { serializeError } from '../../domain/errors.js';
import type { Logger } from '../../log.js';
import { EFFECT_ANSWERED, fromAnsweringPromise, type EffectAnswered } from '../../machines/answering-effect.js';
import type { Clock } from '../../ports/clock.js';
import type { MountVolumeInput, MountVolumeOutput, UnmountVolumeInput } from '../../machines/volume.machine.js';
import type {
  CleanupOrphanedPodDirectoriesInput, PodDirectoryOutcome, ReconstructedVolume, RemovePodDirectoryInput, TearDownReconstructedVolumeInput,
} from '../../machines/volume-manager.machine.js';
import type { PodDirectoryCleanup, VolumePlugins } from '../../ports/volumes.js';

export function createVolumeActors(plugins: () => VolumePlugins, logger: Logger, clock: Clock) {
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
      plugins().cleanupOrphanedPodDirectories(input.keep, input.only).then(reportKept, (error: unknown) => failed(input.only ?? ['*'], error))),
    reconstructVolumes: fromAnsweringPromise<ReconstructedVolume[], void>(async () => {
      try {
        const volumes = await plugins().reconstructVolumes();
        for (const v of volumes) logger.info({ podUid: v.podUid, volumeSpecName: v.dirName, driver: v.driverName }, 'Volume is marked as uncertain and added into the actual state');
        return volumes;
      } catch (error) {
        logger.error({ err: error }, 'Cannot get volumes from disk, skip sync states for volume reconstruction');
        throw error;
      }
    }),
    // Waits out its back-off on the clock first; stopped meanwhile (its driver registered), it
    // neither tears down nor answers.
    tearDownReconstructedVolume: fromCallback<AnyEventObject, TearDownReconstructedVolumeInput>(({ input, self, sendBack }) => {
      const { podUid, dirName } = input.volume;
      let stopped = false;
      const answer = (event: EffectAnswered<void>) => { if (!stopped) sendBack(event); };
      const timer = clock.setTimeout(() => {
        plugins().tearDownReconstructedVolume(input.volume).then(() => {
          logger.info({ podUid, volumeSpecName: dirName }, 'Reconstructed volume torn down');
          answer({ type: EFFECT_ANSWERED, id: self.id, output: undefined });
        }, (error: unknown) => {
          logger.warn({ podUid, volumeSpecName: dirName, err: error }, 'Tearing down a reconstructed volume failed, will retry');
          answer({ type: EFFECT_ANSWERED, id: self.id, error: serializeError(error) });
        });
      }, input.delayMs);
      return () => {
        stopped = true;
        clock.clearTimeout(timer);
      };
    }),
  };
}
