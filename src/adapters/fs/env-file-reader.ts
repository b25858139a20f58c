/**
 * Reads an env file a container's `fileKeyRef` names, inside its volume (Go: securejoin of the
 * volume's path and the file's, then ParseEnv). The file's path is cleaned with `..` stopping at
 * the volume's top, and where it resolves (links followed) must still be inside the volume: a link
 * an init container planted that points at the node's files is refused, not read. Only a regular
 * file within the bound is read, so a FIFO or /dev/zero planted there cannot hold the kubelet.
 */
import { posix } from 'node:path';
import { realpath } from 'node:fs/promises';
import { readRegularFile } from '../bounded-input/read-regular-file.js';
import { isPathWithinBase } from './subpath-resolver.js';

/**
 * Go reads the file a line at a time until the key is found, with no bound on the file (64 KiB a
 * line). Ours is read whole, then parsed: 1 MiB holds far more than a container's environment can
 * (Linux takes at most 128 KiB a variable, MAX_ARG_STRLEN).
 */
export const ENV_FILE_MAX_BYTES = 1024 * 1024;

export type EnvFileText = { path: string; text: string } | { path: string; unreadable: string };

/** `path` inside `volumePath`, `..` stopping at the volume's top, as securejoin cleans it. */
export function joinInsideVolume(volumePath: string, path: string): string {
  return posix.join(volumePath, posix.normalize(`/${path}`));
}

export async function readEnvFile(volumePath: string, path: string): Promise<EnvFileText> {
  const joined = joinInsideVolume(volumePath, path);
  try {
    const [real, realVolume] = await Promise.all([realpath(joined), realpath(volumePath)]);
    if (!isPathWithinBase(real, realVolume)) return { path: joined, unreadable: `resolves to ${real}, outside its volume` };
    const { text } = await readRegularFile(real, ENV_FILE_MAX_BYTES);
    return { path: joined, text };
  } catch (err) {
    return { path: joined, unreadable: `failed to open environment variable file "${joined}": ${err instanceof Error ? err.message : String(err)}` };
  }
}
