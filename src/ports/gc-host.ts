/** What the garbage collectors need from outside the CRI. */
export interface GcHost {
  /** UIDs of the pods the syncLoop has; null until every pod source has been seen. */
  activePods: () => ReadonlySet<string> | null;
  listDirs: (dir: string) => Promise<string[]>;
  removeDir: (path: string) => Promise<void>;
  fsUsage: (path: string) => Promise<{ capacityBytes: number; availableBytes: number }>;
}
