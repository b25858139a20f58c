/**
 * The node's container log files as the container log manager and the legacy links use them
 * (Go's osInterface calls in pkg/kubelet/logs and kuberuntime's removeContainerLog). A log, its
 * rotated files and its directory are only ever regular files and directories: anything else there
 * (a link a pod planted) is refused with KLT_ERR_PATH_UNSAFE, or left out of a listing.
 */
export interface ContainerLogFiles {
  /** The file's size in bytes, or null when there is none at `path`. */
  size(path: string): Promise<number | null>;
  /** The files named `<path>.<anything>` in the same directory (Go's glob `<path>.*`). */
  siblings(path: string): Promise<string[]>;
  /** Removes a file; one already gone is not an error. */
  remove(path: string): Promise<void>;
  /** Renames a log within its directory. */
  rename(from: string, to: string): Promise<void>;
  /** Gzips `path` to `<path>.gz` through `<path>.tmp`, then removes `path` (Go's compressLog). */
  compress(path: string): Promise<void>;
  /** Removes a legacy link (the link itself); one already gone is not an error. */
  removeLink(link: string): Promise<void>;
  /** A symbolic link at `link` pointing at `target`. */
  symlink(target: string, link: string): Promise<void>;
}

/** Where the legacy links go, and the files they and the logs are made of. */
export interface ContainerLogHost {
  files: ContainerLogFiles;
  /** /var/log/containers unless the environment names another (tests). */
  linkDir: string;
}
