/** The RuntimeHost port over the node's file system, node:http(s) and node:os. */
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

export function createRuntimeHost(): RuntimeHost {
  return {
    makeDirectory: (path) => makeDirectories(path, 0o755),
    readTextFile: (path) => readFile(path, 'utf8'),
    listFiles: listRegularFiles,
    httpGet: nodeHttpGet,
    memoryCapacityBytes: () => totalmem(),
  };
}
