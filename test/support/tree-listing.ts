/**
 * A directory tree as one line per entry: its path relative to the top, type, mode, owner, group, and
 * for a file its size and a digest of its bytes (for a symlink its target). Two listings are equal
 * when nothing in the tree was created, removed, chmodded, chowned or rewritten. `skip`: absolute
 * paths whose subtrees are left out (where changes are allowed). Synchronous, as a check between
 * two steps should see one instant.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';

export function listTree(top: string, skip: readonly string[] = []): string[] {
  const lines: string[] = [];
  const walk = (path: string): void => {
    if (skip.includes(path)) return;
    const info = lstatSync(path);
    const kind = info.isDirectory() ? 'dir' : info.isFile() ? 'file' : info.isSymbolicLink() ? 'link' : 'other';
    let detail = '';
    if (kind === 'file') detail = `${info.size} ${createHash('sha1').update(readFileSync(path)).digest('hex')}`;
    if (kind === 'link') detail = `-> ${readlinkSync(path)}`;
    lines.push(`${relative(top, path) || '.'} ${kind} ${(info.mode & 0o7777).toString(8)} ${info.uid}:${info.gid} ${detail}`.trimEnd());
    if (kind === 'dir') for (const name of readdirSync(path).sort()) walk(join(path, name));
  };
  walk(top);
  return lines;
}
