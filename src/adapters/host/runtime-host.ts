/** The RuntimeHost port over the node's file system, node:http(s) and node:os. */
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { totalmem } from 'node:os';
import type { RuntimeHost } from '../../ports/runtime-host.js';
import { makeDirectories } from '../fs/make-directories.js';
import { nodeHttpGet } from '../http/http-get.js';

async function listRegularFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
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

export function createRuntimeHost(): RuntimeHost {
  return {
    makeDirectory: (path) => makeDirectories(path, 0o755),
    readTextFile: (path) => readFile(path, 'utf8'),
    listFiles: listRegularFiles,
    httpGet: nodeHttpGet,
    memoryCapacityBytes: () => totalmem(),
    selinuxEnabled,
    appArmorEnabled,
  };
}
