import { describe, expect, it } from 'vitest';
import { findFlockWaiters, splitDevice } from '../../../src/domain/node/proc-locks.js';

const PROC_LOCKS = `1: FLOCK  ADVISORY  WRITE 4895 fe:00:2146729 0 EOF
1: -> FLOCK  ADVISORY  WRITE 4899 fe:00:2146729 0 EOF
1: -> FLOCK  ADVISORY  WRITE 4900 fe:00:2146729 0 EOF
2: POSIX  ADVISORY  WRITE 812 fe:00:2146729 0 EOF
2: -> POSIX  ADVISORY  WRITE 813 fe:00:2146729 0 EOF
3: FLOCK  ADVISORY  WRITE 900 fe:01:2146729 0 EOF
3: -> FLOCK  ADVISORY  WRITE 901 fe:01:2146729 0 EOF
4: FLOCK  ADVISORY  WRITE 902 fe:00:77 0 EOF
`;

describe('findFlockWaiters', () => {
  it('lists processes blocked on a flock of exactly this file (device and inode)', () => {
    expect(findFlockWaiters(PROC_LOCKS, { major: 0xfe, minor: 0, inode: 2146729n })).toEqual([4899, 4900]);
    expect(findFlockWaiters(PROC_LOCKS, { major: 0xfe, minor: 1, inode: 2146729n })).toEqual([901]);
  });

  it('finds no waiter when the lock is only held', () => {
    expect(findFlockWaiters(PROC_LOCKS, { major: 0xfe, minor: 0, inode: 77n })).toEqual([]);
    expect(findFlockWaiters('', { major: 0xfe, minor: 0, inode: 77n })).toEqual([]);
  });
});

describe('splitDevice', () => {
  it('splits a Linux dev_t into major and minor', () => {
    expect(splitDevice(0xfe00n)).toEqual({ major: 0xfe, minor: 0 });
    expect(splitDevice(0x803n)).toEqual({ major: 8, minor: 3 });
    // glibc makedev(259, 0x12345): the minor's high bits sit above the major's.
    expect(splitDevice(0x12310345n)).toEqual({ major: 259, minor: 0x12345 });
  });
});
