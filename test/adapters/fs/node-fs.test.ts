import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeDirectories } from '../../../src/adapters/fs/node-fs.js';
import { kubeletDataDirectories } from '../../../src/domain/node/data-directories.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'klt-data-dirs-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('makeDirectories', () => {
  // Under umask 000 the root, pods and pod-resources directories were made 0777, and another user
  // reached the pod-resources socket.
  it('makes the kubelet\'s data directories with Go\'s modes under umask 000', async () => {
    const rootDir = join(dir, 'var/lib/kubelet');
    const dirs = kubeletDataDirectories({ rootDir, podLogsDir: join(dir, 'var/log/pods'), legacyLogLinksDir: join(dir, 'var/log/containers') });
    const previous = process.umask(0);
    try {
      await makeDirectories(dirs);
    } finally {
      process.umask(previous);
    }
    expect(Object.fromEntries(dirs.map((d) => [d.path.slice(dir.length), modeOf(d.path)]))).toEqual({
      '/var/lib/kubelet': 0o750,
      '/var/log/pods': 0o750,
      '/var/lib/kubelet/pods': 0o750,
      '/var/lib/kubelet/plugins': 0o750,
      '/var/lib/kubelet/plugins_registry': 0o750,
      '/var/lib/kubelet/pod-resources': 0o750,
      '/var/log/containers': 0o755,
    });
  });
});
