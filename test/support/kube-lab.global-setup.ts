/**
 * The run's real control plane (kube-lab.ts): an empty directory for it, named to every test file,
 * and, after the run, the lab stopped and the directory removed, whether a file started it or not.
 * Nothing starts here: a run of files that do not need the lab pays nothing for it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { purgeKubeLab } from './kube-lab-scripts.js';

export default function setup(project: TestProject): () => Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kts-kube-lab-'));
  project.provide('kubeLabDir', dir);
  return async () => {
    // run/ holds the pid files of whatever up.sh started, even when it failed half-way.
    if (existsSync(join(dir, 'run'))) await purgeKubeLab(dir);
    rmSync(dir, { recursive: true, force: true });
  };
}
