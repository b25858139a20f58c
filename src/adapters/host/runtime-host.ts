/** The RuntimeHost port over the node's file system, node:http(s) and node:os. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { totalmem } from 'node:os';
import type { RuntimeHost } from '../../ports/runtime-host.js';
import { makeDirectories } from '../fs/make-directories.js';
import { nodeHttpGet } from '../http/http-get.js';

/**
 * Listed on the caller's thread: the directory is a container's log directory, of a handful of
 * entries, listed at every container start, where a trip through the thread pool costs the event
 * loop ten times the listing.
 */
async function listRegularFiles(dir: string): Promise<string[]> {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** An SELinux file system with a policy loaded (where go-selinux looks first). */
function selinuxEnabled(): boolean {
  return existsSync('/sys/fs/selinux/enforce');
}

/** runc's test: the securityfs directory exists and the module's `enabled` parameter says Y. */
function appArmorEnabled(): boolean {
  if (!existsSync('/sys/kernel/security/apparmor')) return false;
  try {
    return readFileSync('/sys/module/apparmor/parameters/enabled', 'utf8').startsWith('Y');
  } catch {
    return false;
  }
}

/**
 * --resolv-conf is read for every pod sandbox: its text is kept while a stat (on the caller's
 * thread, a few microseconds) finds the file unchanged, instead of four trips through the thread
 * pool (open, two reads, close) each time. The read itself is kept, so that a burst of sandboxes
 * shares one; a changed file is read again, a failed read is not kept.
 */
function unchangedFileReader(): (path: string) => Promise<string> {
  const kept = new Map<string, { version: string; text: Promise<string> }>();
  return async (path) => {
    const info = statSync(path, { bigint: true });
    const version = `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
    const hit = kept.get(path);
    if (hit?.version === version) return hit.text;
    const text = readFile(path, 'utf8');
    kept.set(path, { version, text });
    text.catch(() => kept.get(path)?.text === text && kept.delete(path));
    return text;
  };
}

export function createRuntimeHost(): RuntimeHost {
  return {
    makeDirectory: (path) => makeDirectories(path, 0o755),
    readTextFile: unchangedFileReader(),
    listFiles: listRegularFiles,
    httpGet: nodeHttpGet,
    memoryCapacityBytes: () => totalmem(),
    selinuxEnabled,
    appArmorEnabled,
  };
}
