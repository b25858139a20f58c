import { describe, expect, it } from 'vitest';
import { fsGroupMode, volumeEntryModes } from '../../../src/domain/volumes/fs-group-modes.js';
import type { Payload } from '../../../src/domain/volumes/sources.js';

describe('fsGroupMode', () => {
  it.each([
    [0o644, 'file', true, 0o644],
    [0o400, 'file', true, 0o440],
    [0o600, 'file', true, 0o640],
    [0o600, 'file', false, 0o660],
    [0o755, 'directory', true, 0o2755],
    [0o700, 'directory', true, 0o2750],
    [0o700, 'directory', false, 0o2770],
    [0o777, 'symlink', true, 0o777],
  ] as const)('makes %s (%s, readOnly %s) %s, only adding bits', (mode, kind, readOnly, expected) => {
    expect(fsGroupMode(mode, kind, readOnly).toString(8)).toBe(expected.toString(8));
  });
});

describe('volumeEntryModes', () => {
  const payload: Payload = new Map([
    ['token', { path: 'token', content: Buffer.from('t'), mode: 0o600 }],
    ['conf/deep/app', { path: 'conf/deep/app', content: Buffer.from('a'), mode: 0o644 }],
    ['conf/b', { path: 'conf/b', content: Buffer.from('b'), mode: 0o400 }],
  ]);

  it('lists the data directory, every directory parents first, then the files, at the writer\'s modes', () => {
    expect(volumeEntryModes(payload, { readOnly: true }).map((e) => [e.path, e.kind, e.mode.toString(8)])).toEqual([
      ['.', 'directory', '755'],
      ['conf', 'directory', '755'],
      ['conf/deep', 'directory', '755'],
      ['token', 'file', '600'],
      ['conf/deep/app', 'file', '644'],
      ['conf/b', 'file', '400'],
    ]);
  });

  it('adds what SetVolumeOwnership adds when there is an fsGroup', () => {
    expect(volumeEntryModes(payload, { fsGroup: 2000, readOnly: true }).map((e) => [e.path, e.mode.toString(8)])).toEqual([
      ['.', '2755'], ['conf', '2755'], ['conf/deep', '2755'], ['token', '640'], ['conf/deep/app', '644'], ['conf/b', '440'],
    ]);
  });
});
