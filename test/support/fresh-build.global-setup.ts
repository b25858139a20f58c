/**
 * The integration tests run the bundled binary (kubelet-bin.ts), not the sources: a run after an
 * edit without `npm run build` would test the old code and pass or fail for the wrong reason. So
 * the suite refuses to start when any file under src/ or proto/ is newer than the bundle.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { KUBELET_BIN } from './kubelet-bin.js';

export const BUILD_INPUTS = ['src', 'proto'];

/** The most recently modified file below `dir`, or undefined when it holds none. */
export function newestFile(dir: string): { path: string; mtimeMs: number } | undefined {
  let newest: { path: string; mtimeMs: number } | undefined;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const { mtimeMs } = statSync(path);
    if (!newest || mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
  }
  return newest;
}

/** Why the bundle cannot be trusted to be the sources' build, or undefined when it can. */
export function staleBuildReason(bundle: string, inputs: readonly string[]): string | undefined {
  let built: number;
  try {
    built = statSync(bundle).mtimeMs;
  } catch {
    return `${bundle} does not exist: run \`npm run build\` first`;
  }
  for (const dir of inputs) {
    const newest = newestFile(dir);
    if (newest && newest.mtimeMs > built) return `${newest.path} is newer than ${bundle}: run \`npm run build\` first`;
  }
  return undefined;
}

export default function setup(): void {
  const reason = staleBuildReason(KUBELET_BIN, BUILD_INPUTS);
  if (reason) throw new Error(`the build is stale: ${reason}`);
}
