import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeRootFileSystem, hasJournal, rootFileSystem } from '../../bench/root-fs.js';

describe('root-fs', () => {
  it('finds a journal by its jbd2 entry for that device alone', () => {
    expect(hasJournal('vda', ['vda-8'])).toBe(true);
    expect(hasJournal('vda', ['vda1-8', 'loop0-8'])).toBe(false);
    expect(hasJournal('dm-1', ['dm-1-8'])).toBe(true);
    expect(hasJournal('vda', [])).toBe(false);
  });

  it('tells a tmpfs from a disk: no block device, no journal question', () => {
    const fs = rootFileSystem('/dev/shm');
    expect(fs).toMatchObject({ fsType: 'tmpfs', device: null, journal: null });
    expect(describeRootFileSystem(fs)).toBe(`tmpfs, mounted at ${fs.mountPoint}`);
  });

  it('reads a directory below a mount point as lying on that mount', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kts-rootfs-'));
    try {
      const fs = rootFileSystem(dir);
      expect(dir.startsWith(fs.mountPoint === '/' ? '/' : `${fs.mountPoint}/`)).toBe(true);
      expect(fs.fsType).not.toBe('unknown');
      if (fs.fsType === 'ext4') expect(fs.device).not.toBeNull();
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});
