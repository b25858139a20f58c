import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { staleBuildReason } from './fresh-build.global-setup.js';

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
