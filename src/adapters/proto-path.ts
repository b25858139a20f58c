/**
 * Finds one of the package's .proto files (under proto/ at the package root) by walking up from the
 * calling module's directory. Walking, rather than a fixed number of `..`, is what makes the same
 * code work from `src/adapters/…` under vitest and from `dist/src/adapters/…` after tsc.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The absolute path of `relativePath` in the first ancestor of `startDir` that holds it. */
export function findPackageProto(relativePath: string, startDir: string): string {
  let dir = startDir;
  for (;;) {
    const candidate = join(dir, relativePath);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`proto ${relativePath} not found above ${startDir}`);
    dir = parent;
  }
}
