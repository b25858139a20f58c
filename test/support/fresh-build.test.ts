import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMMAND_BOUND_MS } from './kubelet-bin.js';
import { staleBuildReason } from '../../scripts/fresh-build.mjs';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'kts-fresh-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(path: string, secondsAgo: number): string {
  const full = join(dir, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, 'x');
  const at = Date.now() / 1000 - secondsAgo;
  utimesSync(full, at, at);
  return full;
}

describe('the fresh-build check before the suite', () => {
  it('passes when the bundle is newer than every source', () => {
    file('src/a/b.ts', 60);
    const bundle = file('dist/kubelet.js', 10);
    expect(staleBuildReason(bundle, [join(dir, 'src')])).toBeUndefined();
  });

  it('names a source edited after the build, however deep', () => {
    file('src/a.ts', 60);
    const edited = file('src/deep/er/c.ts', 5);
    const bundle = file('dist/kubelet.js', 10);
    expect(staleBuildReason(bundle, [join(dir, 'src')])).toBe(`${edited} is newer than ${bundle}: run \`npm run build\` first`);
  });

  it('says so when there is no bundle', () => {
    file('src/a.ts', 60);
    expect(staleBuildReason(join(dir, 'dist/kubelet.js'), [join(dir, 'src')])).toMatch(/does not exist: run `npm run build` first/);
  });
});

describe('the fresh-build check of single files and missing inputs', () => {
  it('names a build input that is a file (package-lock.json) edited after the build', () => {
    const bundle = file('dist/kubelet.js', 10);
    const lock = file('package-lock.json', 5);
    expect(staleBuildReason(bundle, [lock])).toBe(`${lock} is newer than ${bundle}: run \`npm run build\` first`);
  });

  it('passes over an input that does not exist', () => {
    const bundle = file('dist/kubelet.js', 10);
    expect(staleBuildReason(bundle, [join(dir, 'nothing-here')])).toBeUndefined();
  });
});

describe('npm start\'s build-if-stale', () => {
  const SCRIPT = resolve('scripts/fresh-build.mjs');

  /** Runs the script in `dir` with an npm that only records that it was asked to build. */
  function buildIfStale() {
    const npm = join(dir, 'fake-npm.cjs');
    writeFileSync(npm, `require('node:fs').writeFileSync(${JSON.stringify(join(dir, 'built'))}, process.argv.slice(2).join(' '));\n`);
    const r = spawnSync(process.execPath, [SCRIPT, '--build-if-stale'], { cwd: dir, encoding: 'utf8', env: { ...process.env, npm_execpath: npm }, timeout: COMMAND_BOUND_MS });
    return { ...r, built: existsSync(join(dir, 'built')) ? readFileSync(join(dir, 'built'), 'utf8') : null };
  }

  it('builds nothing when the bundle is newer than every input', () => {
    file('src/a.ts', 60);
    file('package.json', 60);
    file('dist/bundle/kubelet.js', 10);
    const r = buildIfStale();
    expect(r.status).toBe(0);
    expect(r.built).toBeNull();
  });

  it('runs `npm run build` when a source is newer, saying which', () => {
    file('dist/bundle/kubelet.js', 10);
    file('src/deep/b.ts', 5);
    const r = buildIfStale();
    expect(r.status).toBe(0);
    expect(r.built).toBe('run build --silent');
    expect(r.stderr).toBe('fresh-build: building, src/deep/b.ts is newer than dist/bundle/kubelet.js\n');
  });
});
