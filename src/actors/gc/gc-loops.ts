/**
 * The garbage collectors' loops, started in runKubelet.garbageCollection: containers every minute,
 * images every five (ContainerGCPeriod, ImageGCPeriod in Go). Each run is bounded by its own work;
 * a failure is logged and the next period tries again. Timers run on the injected clock.
 */
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { GarbageCollectors } from '../../ports/gc-host.js';
import { every } from '../every.js';
import { collectContainers, type ContainerGcDeps } from './container-gc.js';
import { collectImages, type ImageGcDeps } from './image-gc.js';

export const CONTAINER_GC_PERIOD_MS = 60_000;
export const IMAGE_GC_PERIOD_MS = 5 * 60_000;

/** Starts both loops; answers how to stop them and the collectors for the eviction manager's node-level reclaim. */
export function startGarbageCollection(opts: {
  clock: Clock;
  logger: Logger;
  containers: Omit<ContainerGcDeps, 'nowMs'>;
  images: Omit<ImageGcDeps, 'nowMs' | 'records'>;
}): { stop: () => void; collectors: GarbageCollectors } {
  // One set of image records for the loop and the eviction manager: first-seen times count for both.
  const records: ImageGcDeps['records'] = new Map();
  const stopContainers = every(opts.clock, CONTAINER_GC_PERIOD_MS, async () => {
    try {
      const r = await collectContainers({ ...opts.containers, nowMs: opts.clock.now() });
      if (r.removedContainers.length + r.removedSandboxes.length + r.removedLogDirs.length > 0) opts.logger.info(r, 'Container garbage collection removed');
    } catch (err) {
      opts.logger.warn({ err }, 'Container garbage collection failed');
    }
  });
  const stopImages = every(opts.clock, IMAGE_GC_PERIOD_MS, async () => {
    try {
      const r = await collectImages({ ...opts.images, nowMs: opts.clock.now(), records });
      if (r.removed.length > 0) opts.logger.info(r, 'Image garbage collection removed');
    } catch (err) {
      opts.logger.warn({ err }, 'Image garbage collection failed');
    }
  });
  const collectors: GarbageCollectors = {
    deleteAllUnusedContainers: async () => {
      await collectContainers({ ...opts.containers, nowMs: opts.clock.now() });
    },
    // Go's DeleteUnusedImages frees as much as it can: thresholds at 0 % make every unused image go.
    deleteUnusedImages: async () => {
      const policy = { ...opts.images.policy, highThresholdPercent: 0, lowThresholdPercent: 0 };
      await collectImages({ ...opts.images, policy, nowMs: opts.clock.now(), records });
    },
  };
  const stop = () => {
    stopContainers();
    stopImages();
  };
  return { stop, collectors };
}
