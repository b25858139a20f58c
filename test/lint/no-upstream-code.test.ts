/**
 * Upstream binaries (the control plane, the Go kubelet, the e2e suite, the node peers) are built on
 * the machine that runs them, in KUBE_LAB_BIN, and never committed: not the binaries, not an archive
 * of them, not a script that builds them. The build is described in prose
 * (docs/reference/build-and-test.md); this guards the tree against the rest.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { extname } from 'node:path';
import { describe, expect, it } from 'vitest';

const ELF_MAGIC = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);
/** Archives and packed binaries; the tree has none of its own. */
const PACKED = new Set(['.xz', '.gz', '.tgz', '.bz2', '.zst', '.zip', '.tar', '.7z', '.deb', '.rpm', '.jar', '.so', '.a', '.o', '.exe']);
/** Files that run: scripts and the project's code, where a build of fetched code would hide. */
const RUNS = new Set(['.sh', '.bash', '.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.py', '.go', '.mk']);
const GO_BUILD = new RegExp(['\\bgo', '(build|install|test\\s+-c|generate)\\b'].join('\\s+'));

const THIS_FILE = 'test/lint/no-upstream-code.test.ts';

const tracked = (): string[] => execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8', maxBuffer: 64 << 20 }).split('\0').filter(Boolean);

function startsWithElf(file: string): boolean {
  const head = Buffer.alloc(4);
  const fd = openSync(file, 'r');
  try {
    return readSync(fd, head, 0, 4, 0) === 4 && head.equals(ELF_MAGIC);
  } finally {
    closeSync(fd);
  }
}

describe('the tree holds no upstream binaries and no build of fetched code', () => {
  const files = tracked();

  it('tracks files (the check below reads them)', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it('has no ELF executable or library', () => {
    expect(files.filter(startsWithElf)).toEqual([]);
  });

  it('has no archive or packed binary', () => {
    expect(files.filter((f) => PACKED.has(extname(f).toLowerCase()))).toEqual([]);
  });

  it('has no script or code that runs a Go build', () => {
    // This file names such commands as examples of what it catches.
    const runs = files.filter((f) => f !== THIS_FILE && (RUNS.has(extname(f)) || /(^|\/)(Makefile|Dockerfile)$/.test(f) || f.startsWith('.ci/')));
    expect(runs.filter((f) => GO_BUILD.test(readFileSync(f, 'utf8')))).toEqual([]);
  });

  it('would see one: the pattern matches the commands it is there to catch', () => {
    for (const line of ['go build -o bin/kubelet ./cmd/kubelet', 'GOFLAGS=-mod=vendor go  test -c ./test/e2e', 'go install ./vendor/x']) expect(line).toMatch(GO_BUILD);
    expect('a Go building block').not.toMatch(GO_BUILD);
  });
});
