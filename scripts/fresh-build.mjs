/**
 * Is dist/bundle the build of the sources as they are now? The bundle is the last thing
 * `npm run build` writes (generate, tsc, charts, then the bundle, which is removed first), so it is
 * current when no build input was modified after it. Plain JavaScript, run by Node before anything
 * is built: `npm start` builds only when this says the bundle is stale, and vitest's global setup
 * (test/support/fresh-build.global-setup.ts) refuses to test a stale one.
 *
 *   node scripts/fresh-build.mjs --build-if-stale     (npm start: runs `npm run build` when needed)
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BUNDLE = 'dist/bundle/kubelet.js';

/** What the bundle is built from: the sources, the protos, the build scripts, the dependencies. */
export const BUILD_INPUTS = ['src', 'proto', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json'];

/** The most recently modified file at or below `path`, or undefined when there is none. */
export function newestFile(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return undefined;
  }
  if (!stat.isDirectory()) return stat.isFile() ? { path, mtimeMs: stat.mtimeMs } : undefined;
  let newest;
  for (const entry of readdirSync(path, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    const { mtimeMs } = statSync(file);
    if (!newest || mtimeMs > newest.mtimeMs) newest = { path: file, mtimeMs };
  }
  return newest;
}

/** Why the bundle cannot be trusted to be the inputs' build, or undefined when it can. */
export function staleBuildReason(bundle, inputs) {
  let built;
  try {
    built = statSync(bundle).mtimeMs;
  } catch {
    return `${bundle} does not exist: run \`npm run build\` first`;
  }
  for (const input of inputs) {
    const newest = newestFile(input);
    if (newest && newest.mtimeMs > built) return `${newest.path} is newer than ${bundle}: run \`npm run build\` first`;
  }
  return undefined;
}

function buildIfStale() {
  const reason = staleBuildReason(BUNDLE, BUILD_INPUTS);
  if (reason === undefined) return 0;
  process.stderr.write(`fresh-build: building, ${reason.replace(/: run `npm run build` first$/, '')}\n`);
  // npm_execpath: the npm that runs this script; `npm` on PATH when run by hand.
  const npm = process.env.npm_execpath;
  const r = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build', '--silent'], { stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
  return r.status ?? 1;
}

if (process.argv[1] && realpathSync(resolve(process.argv[1])) === realpathSync(fileURLToPath(import.meta.url))) {
  if (process.argv[2] !== '--build-if-stale') {
    process.stderr.write('usage: node scripts/fresh-build.mjs --build-if-stale\n');
    process.exit(2);
  }
  process.exit(buildIfStale());
}
