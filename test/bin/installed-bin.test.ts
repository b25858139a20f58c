/**
 * The package's bin as a node agent's unit runs it: by its path, not through `node`. rolldown
 * writes files without the exec bit; scripts/bundle-daemon.ts sets it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';
import { COMMAND_BOUND_MS, KUBELET_BIN } from '../support/kubelet-bin.js';

it('is package.json\'s bin, executable by everyone, with its shebang', () => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { bin: Record<string, string> };
  expect(resolve(pkg.bin['kubelet-ts'] ?? '')).toBe(KUBELET_BIN);
  expect(statSync(KUBELET_BIN).mode & 0o777).toBe(0o755);
  expect(readFileSync(KUBELET_BIN, 'utf8').split('\n')[0]).toMatch(/^#!\/usr\/bin\/env -S node /);
});

it('runs by its path: --version and --help', () => {
  const version = spawnSync(KUBELET_BIN, ['--version'], { encoding: 'utf8', timeout: COMMAND_BOUND_MS });
  expect(version.error).toBeUndefined();
  expect(version.status).toBe(0);
  expect(version.stdout).toMatch(/^Kubernetes v\d+\.\d+\.\d+/);
  const help = spawnSync(KUBELET_BIN, ['--help'], { encoding: 'utf8', timeout: COMMAND_BOUND_MS });
  expect(help.status).toBe(0);
  expect(help.stdout + help.stderr).toContain('--protect-kernel-defaults');
});
