/**
 * What the plugin watcher takes on under the registration directory. Go's watcher has no bounds but
 * the kernel's inotify limit; these are ours, far above any real registry (node-driver-registrar
 * puts one socket per driver at its top), so that a link loop or a flood of directories costs a
 * logged error rather than the kubelet's loop and memory.
 */
import type { Logger } from '../../log.js';

export interface PluginWatchBounds {
  /** Levels of directories below the registry that are watched and walked. */
  maxDepth: number;
  /** Directories watched at once, the registry included. */
  maxDirs: number;
  /** Sockets tracked at once; also the names read from one directory. */
  maxEntries: number;
}

// Registries are flat or one level deep: nothing a plugin makes comes near this.
export const PLUGIN_WATCH_MAX_DEPTH = 8;
// Each watched directory holds an inotify watch from the per-user kernel budget the whole node shares.
export const PLUGIN_WATCH_MAX_DIRS = 1_000;
// Far more plugins than a node runs; a listing is held whole while it is sorted.
export const PLUGIN_WATCH_MAX_ENTRIES = 10_000;

export const PLUGIN_WATCH_BOUNDS: PluginWatchBounds = {
  maxDepth: PLUGIN_WATCH_MAX_DEPTH,
  maxDirs: PLUGIN_WATCH_MAX_DIRS,
  maxEntries: PLUGIN_WATCH_MAX_ENTRIES,
};

export type PluginWatchRefusal = 'tooDeep' | 'tooManyDirs' | 'listingCut' | 'tooManySockets';

const MESSAGES: Record<PluginWatchRefusal, string> = {
  tooDeep: 'Plugin watcher: directory deeper than the watch bound, not watched',
  tooManyDirs: 'Plugin watcher: too many directories watched, directory not watched',
  listingCut: 'Plugin watcher: directory has more entries than the bound, the rest not looked at',
  tooManySockets: 'Plugin watcher: too many sockets tracked, socket not tracked',
};

/**
 * Logs each kind of refusal once per walk (the walk at start, or one event's), naming the first
 * directory or socket it refused: a loop or a flood yields one error, not one per name.
 */
export function refusalLog(logger: Logger, bounds: PluginWatchBounds): (refusal: PluginWatchRefusal, path: string) => void {
  const logged = new Set<PluginWatchRefusal>();
  return (refusal, path) => {
    if (logged.has(refusal)) return;
    logged.add(refusal);
    logger.error({ path, bounds }, MESSAGES[refusal]);
  };
}
