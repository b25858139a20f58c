/**
 * The garbage collectors as the eviction manager calls them to reclaim disk at node level (Go:
 * ContainerGC.DeleteAllUnusedContainers, ImageGC.DeleteUnusedImages).
 */
export interface GarbageCollectors {
  /** One container GC run with the configured policy. */
  deleteAllUnusedContainers(): Promise<void>;
  /** Every image no container uses and older than imageMinimumGCAge, whatever the disk usage. */
  deleteUnusedImages(): Promise<void>;
}

/** What the garbage collectors need from outside the CRI. */
export interface GcHost {
  /** UIDs of the pods the syncLoop has; null until every pod source has been seen. */
  activePods: () => ReadonlySet<string> | null;
  listDirs: (dir: string) => Promise<string[]>;
  removeDir: (path: string) => Promise<void>;
  fsUsage: (path: string) => Promise<{ capacityBytes: number; availableBytes: number }>;
}
