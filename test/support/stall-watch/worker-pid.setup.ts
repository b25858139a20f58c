import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { expect } from 'vitest';
import { workerPidFile } from './worker-pids.js';

// Runs in the worker before the test file is imported, so a file that blocks while it loads is named
// with its process too.
const testFile = expect.getState().testPath;
if (testFile) {
  const file = workerPidFile(process.ppid, testFile);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, String(process.pid));
}
