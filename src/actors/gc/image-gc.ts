/**
 * Image garbage collection (pkg/kubelet/images/image_gc_manager.go), every 5 minutes: when the image
 * file system is at or above imageGCHighThresholdPercent, remove images no container uses, least
 * recently used first, never one younger than imageMinimumGCAge (counted from when this kubelet
 * first saw it), until usage is down to imageGCLowThresholdPercent. Also, with imageMaximumGCAge
 * set, unused images not used for that long go regardless of usage.
 */
import type { CriClient } from '../../ports/cri.js';

export interface ImageGcPolicy {
  highThresholdPercent: number;
  lowThresholdPercent: number;
  minAgeMs: number;
  /** 0 = off. */
  maxAgeMs: number;
}

export interface ImageGcDeps {
  cri: Pick<CriClient, 'runtime' | 'images'>;
  policy: ImageGcPolicy;
  nowMs: number;
  /** Capacity and use of the file system holding the images, in bytes (statfs of the mountpoint). */
  fsUsage: (mountpoint: string) => Promise<{ capacityBytes: number; availableBytes: number }>;
  /** First-seen and last-used times per image id, kept across runs by the caller. */
  records: Map<string, { firstSeenMs: number; lastUsedMs: number }>;
}

export interface ImageGcResult {
  usagePercent: number | null;
  removed: string[];
  freedBytes: number;
}

export async function collectImages(deps: ImageGcDeps): Promise<ImageGcResult> {
  const { cri, policy, nowMs, records } = deps;
  const images = await cri.images.listImages();
  const inUse = new Set<string>();
  for (const c of await cri.runtime.listContainers()) {
    inUse.add(c.image_ref);
    inUse.add(c.image.image);
  }
  for (const img of images) {
    const used = inUse.has(img.id) || img.repo_tags.some((t) => inUse.has(t));
    const rec = records.get(img.id) ?? { firstSeenMs: nowMs, lastUsedMs: 0 };
    if (used) rec.lastUsedMs = nowMs;
    records.set(img.id, rec);
  }
  for (const id of [...records.keys()]) if (!images.some((i) => i.id === id)) records.delete(id);

  const unused = images
    .filter((i) => !inUse.has(i.id) && !i.repo_tags.some((t) => inUse.has(t)) && !i.pinned)
    .map((i) => ({ image: i, rec: records.get(i.id)! }))
    .filter(({ rec }) => nowMs - rec.firstSeenMs >= policy.minAgeMs)
    .sort((a, b) => a.rec.lastUsedMs - b.rec.lastUsedMs || a.rec.firstSeenMs - b.rec.firstSeenMs);

  const removed: string[] = [];
  let freedBytes = 0;
  const remove = async (id: string, size: number) => {
    await cri.images.removeImage({ image: id });
    records.delete(id);
    removed.push(id);
    freedBytes += size;
  };

  if (policy.maxAgeMs > 0) {
    for (const { image, rec } of unused) {
      if (nowMs - Math.max(rec.lastUsedMs, rec.firstSeenMs) > policy.maxAgeMs) await remove(image.id, Number(image.size));
    }
  }

  const fs = (await cri.images.imageFsInfo()).image_filesystems[0];
  if (!fs?.fs_id?.mountpoint) return { usagePercent: null, removed, freedBytes };
  const { capacityBytes, availableBytes } = await deps.fsUsage(fs.fs_id.mountpoint);
  if (capacityBytes <= 0) return { usagePercent: null, removed, freedBytes };
  const usagePercent = Math.round((100 * (capacityBytes - availableBytes)) / capacityBytes);
  if (usagePercent < policy.highThresholdPercent) return { usagePercent, removed, freedBytes };
  const toFree = (capacityBytes - availableBytes) - (capacityBytes * policy.lowThresholdPercent) / 100;
  for (const { image } of unused) {
    if (freedBytes >= toFree) break;
    if (removed.includes(image.id)) continue;
    await remove(image.id, Number(image.size));
  }
  return { usagePercent, removed, freedBytes };
}
