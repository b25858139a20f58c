/**
 * The directories initializeModules makes, with their modes (Go: kubelet.go setupDataDirs, then the
 * legacy container logs directory in initializeModules). The modes are the kubelet's own, whatever
 * the umask: the pod-resources directory is what keeps other users off its socket, and the pods
 * directory holds every pod's volumes.
 */

/** Go's mode for --root-dir and the directories it makes under it: its group may look, nobody else. */
export const KUBELET_DATA_DIRECTORY_MODE = 0o750;
/** Go's mode for /var/log/containers: log readers of any user follow the links. */
export const LEGACY_LOG_LINKS_DIRECTORY_MODE = 0o755;

export interface DataDirectory {
  path: string;
  mode: number;
}

/** In Go's order: the root dir, the pod logs directory, then the root dir's children, then the legacy links' directory. */
export function kubeletDataDirectories(o: { rootDir: string; podLogsDir: string; legacyLogLinksDir: string }): DataDirectory[] {
  const mode = KUBELET_DATA_DIRECTORY_MODE;
  return [
    { path: o.rootDir, mode },
    { path: o.podLogsDir, mode },
    ...['pods', 'plugins', 'plugins_registry', 'pod-resources'].map((name) => ({ path: `${o.rootDir}/${name}`, mode })),
    { path: o.legacyLogLinksDir, mode: LEGACY_LOG_LINKS_DIRECTORY_MODE },
  ];
}
