/**
 * The plugin registration directory watched for sockets (Go: pluginwatcher.Watcher): the directory
 * made 0750 when missing, an inotify watch (node:fs watch) on it and on every directory under it,
 * the tree walked once the watches are up, then each name an event mentions looked at again. A
 * socket is told as created when it appears or when a new one (another file) takes its path, and
 * as removed when it goes; dot-files, and files that are not sockets, are ignored, as Go ignores
 * them. Events are handled one after the other, so a quick remove-and-create is told in order.
 */
import { watch, type FSWatcher } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Logger } from '../../log.js';
import type { PluginSocketHandlers, PluginSocketWatcher } from '../../ports/plugin-registration.js';

const isHidden = (path: string) => basename(path).startsWith('.');

export function createPluginSocketWatcher(logger: Logger): PluginSocketWatcher {
  return {
    async watch(dir, handlers: PluginSocketHandlers) {
      await mkdir(dir, { recursive: true, mode: 0o750 });
      const watchers = new Map<string, FSWatcher>();
      /** Sockets told as created, by path, with their identity (inode and birth time: a freed inode number is reused at once). */
      const sockets = new Map<string, string>();
      let stopped = false;
      let queue = Promise.resolve();
      const later = (work: () => Promise<void>) => {
        queue = queue.then(work).catch((err: unknown) => logger.error({ err }, 'Plugin watcher: handling an event failed'));
      };

      const removeUnder = (path: string) => {
        for (const known of [...sockets.keys()]) {
          if (known === path || known.startsWith(`${path}/`)) {
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

      const look = async (path: string): Promise<void> => {
        if (stopped) return;
        if (isHidden(path)) {
          logger.debug({ path }, 'Ignoring file (starts with \'.\')');
          return;
        }
        const info = await stat(path).catch(() => null);
        if (stopped) return;
        if (!info) {
          removeUnder(path);
          return;
        }
        if (info.isDirectory()) {
          try {
            addWatcher(path);
          } catch (err) {
            logger.error({ err, path }, 'Plugin watcher: cannot watch a directory');
          }
          await traverse(path);
          return;
        }
        if (!info.isSocket()) {
          logger.debug({ path }, 'Ignoring non socket file');
          return;
        }
        const identity = `${info.ino}:${info.birthtimeMs || info.ctimeMs}`;
        if (sockets.get(path) === identity) return;
        sockets.set(path, identity);
        logger.info({ path }, 'Adding socket path or updating timestamp to desired state cache');
        handlers.onCreated(path);
      };

      /** Throws when the directory cannot be watched. */
      const addWatcher = (path: string): void => {
        if (watchers.has(path)) return;
        // 'rename' is a name appearing or going (Go acts on Create and Remove); 'change' is a write or a chmod.
        const w = watch(path, { persistent: false }, (event, name) => {
          if (event === 'rename' && name !== null) later(() => look(join(path, name.toString())));
        });
        w.on('error', (err) => logger.error({ err, path }, 'Plugin watcher: watch failed'));
        watchers.set(path, w);
      };

      // Go's traversePluginDir: what is there already, once the watch is up.
      const traverse = async (path: string): Promise<void> => {
        const entries = await readdir(path).catch(() => [] as string[]);
        for (const entry of entries.sort()) await look(join(path, entry));
      };

      addWatcher(dir);
      later(() => traverse(dir));
      await queue;
      return {
        stop: () => {
          stopped = true;
          for (const w of watchers.values()) w.close();
          watchers.clear();
        },
      };
    },
  };
}
