/**
 * How the plugin watcher looks at one name under the registration directory, as Go's walk does:
 * lstat first, so a symlink is never taken for the directory it points to and never entered. A
 * symlink whose target is a socket counts as a socket at the link's path, because Go's
 * IsUnixDomainSocket stats (follows) the name its Lstat-based walk hands it.
 */
import type { Stats } from 'node:fs';
import { lstat, opendir, stat } from 'node:fs/promises';

export type PluginDirEntry =
  | { kind: 'gone' }
  | { kind: 'directory' }
  /** `identity`: the socket's inode and birth time (a freed inode number is reused at once). */
  | { kind: 'socket'; identity: string }
  | { kind: 'linkedDirectory' }
  | { kind: 'other' };

const identityOf = (info: Stats) => `${info.ino}:${info.birthtimeMs || info.ctimeMs}`;

export async function lookAtEntry(path: string): Promise<PluginDirEntry> {
  const own = await lstat(path).catch(() => null);
  if (!own) return { kind: 'gone' };
  if (own.isDirectory()) return { kind: 'directory' };
  if (own.isSocket()) return { kind: 'socket', identity: identityOf(own) };
  if (!own.isSymbolicLink()) return { kind: 'other' };
  const target = await stat(path).catch(() => null);
  if (target?.isSocket()) return { kind: 'socket', identity: identityOf(target) };
  return target?.isDirectory() ? { kind: 'linkedDirectory' } : { kind: 'other' };
}

/**
 * A directory's names, sorted as Go's walk sorts them, read a batch at a time and cut after `max`
 * (`cut`), so a huge directory never lands in memory whole. Null when it cannot be read.
 */
export async function readEntryNames(dir: string, max: number): Promise<{ names: string[]; cut: boolean } | null> {
  const handle = await opendir(dir).catch(() => null);
  if (!handle) return null;
  const names: string[] = [];
  let cut = false;
  try {
    // Leaving the loop early closes the handle.
    for await (const entry of handle) {
      if (names.length >= max) {
        cut = true;
        break;
      }
      names.push(entry.name);
    }
  } catch {
    // Removed while read: what was read stands.
  }
  return { names: names.sort(), cut };
}
