/**
 * The plugin registration directory watched for sockets (Go: pluginwatcher.Watcher): the directory
 * made 0750 when missing, an inotify watch (node:fs watch) on it and on every directory under it,
 * the tree walked once the watches are up, then each name an event mentions looked at again. A
 * socket is told as created when it appears or when a new one (another file) takes its path, and
 * as removed when it goes; dot-files, and files that are not sockets, are ignored, as Go ignores
 * them. Events are handled one after the other, so a quick remove-and-create is told in order.
 *
 * Names are looked at with lstat (plugin-dir-entries.ts): a symlinked directory is never watched
 * nor entered, so a link to `.` or to a host directory adds nothing. Depth, directories and sockets
 * are bounded (plugin-watch-bounds.ts). Every name costs an await on libuv, so a walk never holds
 * the loop, and a stop (or the signal) ends it at the next name.
 */
import { watch, type FSWatcher } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import type { Logger } from '../../log.js';
import type { PluginSocketHandlers, PluginSocketWatcher } from '../../ports/plugin-registration.js';
import { lookAtEntry, readEntryNames } from './plugin-dir-entries.js';
import { PLUGIN_WATCH_BOUNDS, refusalLog, type PluginWatchBounds, type PluginWatchRefusal } from './plugin-watch-bounds.js';

export interface PluginSocketWatchHandle {
  stop(): void;
  /** Directories under an inotify watch now, the registry included. */
  watchedDirs(): number;
}

type Refuse = (refusal: PluginWatchRefusal, path: string) => void;

const isHidden = (path: string) => basename(path).startsWith('.');

export function createPluginSocketWatcher(logger: Logger, bounds: PluginWatchBounds = PLUGIN_WATCH_BOUNDS) {
  return {
    async watch(dir: string, handlers: PluginSocketHandlers, signal?: AbortSignal): Promise<PluginSocketWatchHandle> {
      await mkdir(dir, { recursive: true, mode: 0o750 });
      const watchers = new Map<string, FSWatcher>();
      /** Sockets told as created, by path, with their identity. */
      const sockets = new Map<string, string>();
      let stopped = false;
      const stop = () => {
        stopped = true;
        signal?.removeEventListener('abort', stop);
        for (const w of watchers.values()) w.close();
        watchers.clear();
      };
      const handle: PluginSocketWatchHandle = { stop, watchedDirs: () => watchers.size };
      if (signal?.aborted) {
        stop();
        return handle;
      }
      signal?.addEventListener('abort', stop, { once: true });

      let queue = Promise.resolve();
      const later = (work: () => Promise<void>) => {
        queue = queue.then(work).catch((err: unknown) => logger.error({ err }, 'Plugin watcher: handling an event failed'));
      };
      const refusals = () => refusalLog(logger, bounds);

      /** Forgets what was known under `path` (and `path`'s own watch); its own socket too when `withSelf`. */
      const forgetUnder = (path: string, withSelf: boolean) => {
        for (const known of [...sockets.keys()]) {
          if ((withSelf && known === path) || known.startsWith(`${path}/`)) {
            sockets.delete(known);
            logger.info({ path: known }, 'Handling delete event');
            handlers.onRemoved(known);
          }
        }
        for (const [watched, w] of watchers) {
          if (watched !== dir && (watched === path || watched.startsWith(`${path}/`))) {
            w.close();
            watchers.delete(watched);
          }
        }
      };

      const look = async (path: string, refuse: Refuse): Promise<void> => {
        if (stopped) return;
        if (isHidden(path)) {
          logger.debug({ path }, 'Ignoring file (starts with \'.\')');
          return;
        }
        const entry = await lookAtEntry(path);
        if (stopped) return;
        if (entry.kind === 'gone') {
          forgetUnder(path, true);
          return;
        }
        if (entry.kind === 'directory') {
          await enter(path, refuse);
          return;
        }
        // A directory replaced by something else (a symlink, say) keeps no watch.
        if (watchers.has(path)) forgetUnder(path, false);
        if (entry.kind === 'linkedDirectory') {
          logger.debug({ path }, 'Ignoring symlink to a directory');
          return;
        }
        if (entry.kind === 'other') {
          logger.debug({ path }, 'Ignoring non socket file');
          return;
        }
        if (sockets.get(path) === entry.identity) return;
        if (!sockets.has(path) && sockets.size >= bounds.maxEntries) {
          refuse('tooManySockets', path);
          return;
        }
        sockets.set(path, entry.identity);
        logger.info({ path }, 'Adding socket path or updating timestamp to desired state cache');
        handlers.onCreated(path);
      };

      // Go's traversePluginDir on a directory found by the walk or created later: watched, then walked.
      const enter = async (path: string, refuse: Refuse): Promise<void> => {
        if (relative(dir, path).split(sep).length > bounds.maxDepth) {
          refuse('tooDeep', path);
          return;
        }
        if (!watchers.has(path) && watchers.size >= bounds.maxDirs) {
          refuse('tooManyDirs', path);
          return;
        }
        try {
          addWatcher(path);
        } catch (err) {
          logger.error({ err, path }, 'Plugin watcher: cannot watch a directory');
        }
        await traverse(path, refuse);
      };

      /** Throws when the directory cannot be watched. */
      const addWatcher = (path: string): void => {
        if (watchers.has(path)) return;
        // 'rename' is a name appearing or going (Go acts on Create and Remove); 'change' is a write or a chmod.
        const w = watch(path, { persistent: false }, (event, name) => {
          if (event === 'rename' && name !== null) later(() => look(join(path, name.toString()), refusals()));
        });
        w.on('error', (err) => logger.error({ err, path }, 'Plugin watcher: watch failed'));
        watchers.set(path, w);
      };

      // What is there already, once the watch is up.
      const traverse = async (path: string, refuse: Refuse): Promise<void> => {
        const listing = await readEntryNames(path, bounds.maxEntries);
        if (!listing || stopped) return;
        if (listing.cut) refuse('listingCut', path);
        for (const name of listing.names) {
          if (stopped) return;
          await look(join(path, name), refuse);
        }
      };

      addWatcher(dir);
      later(() => traverse(dir, refusals()));
      await queue;
      return handle;
    },
  } satisfies PluginSocketWatcher;
}
