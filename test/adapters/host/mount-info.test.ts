import { describe, expect, it } from 'vitest';
import { MountTable, parseMountInfo } from '../../../src/adapters/host/mount-info.js';

const MOUNTINFO = [
  '27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw',
  '24 27 0:6 / /dev rw,relatime master:3 - devtmpfs devtmpfs rw,mode=755',
  '26 24 0:24 / /dev/pts rw,relatime - devpts devpts rw,mode=600',
  '29 26 0:26 / /dev/pts rw,relatime shared:7 master:2 - devpts devpts rw,mode=600',
  '40 27 0:40 / /mnt/with\\040space rw unbindable - tmpfs tmpfs rw',
  'garbage',
  '',
].join('\n');

describe('parseMountInfo', () => {
  it('reads mount points (unescaped), file system types and propagation, skipping unreadable lines', () => {
    expect(parseMountInfo(MOUNTINFO)).toEqual([
      { mountPoint: '/', fsType: 'ext4', propagation: 'shared' },
      { mountPoint: '/dev', fsType: 'devtmpfs', propagation: 'slave' },
      { mountPoint: '/dev/pts', fsType: 'devpts', propagation: 'private' },
      { mountPoint: '/dev/pts', fsType: 'devpts', propagation: 'shared' },
      { mountPoint: '/mnt/with space', fsType: 'tmpfs', propagation: 'unbindable' },
    ]);
  });
});

describe('MountTable', () => {
  const table = new MountTable(parseMountInfo(MOUNTINFO));

  it.each([
    ['/etc/hosts', '/', 'ext4'],
    ['/dev', '/dev', 'devtmpfs'],
    ['/devices', '/', 'ext4'],
    ['/dev/termination-log', '/dev', 'devtmpfs'],
    ['/dev/pts/0', '/dev/pts', 'devpts'],
  ])('finds the mount %s lies on (%s), the last one stacked at a mount point', (path, mountPoint, fsType) => {
    expect(table.mountOf(path)).toMatchObject({ mountPoint, fsType });
    if (path === '/dev/pts/0') expect(table.mountOf(path)?.propagation).toBe('shared');
  });

  it('lists the mount points strictly below a directory', () => {
    expect(table.mountPointsBelow('/dev')).toEqual(['/dev/pts', '/dev/pts']);
    expect(table.mountPointsBelow('/mnt')).toEqual(['/mnt/with space']);
    expect(table.mountPointsBelow('/dev/pts')).toEqual([]);
  });
});
