import { describe, expect, it } from 'vitest';
import { legacyLogSymlink } from '../../../src/domain/runtime/legacy-log-symlink.js';

describe('legacyLogSymlink', () => {
  it('names the link <pod>_<namespace>_<container>-<id>.log in the directory', () => {
    expect(legacyLogSymlink('/var/log/containers', 'abc123', 'app', 'web-0', 'default')).toBe('/var/log/containers/web-0_default_app-abc123.log');
    expect(legacyLogSymlink('/tmp/links/', 'abc123', 'app', 'web-0', 'default')).toBe('/tmp/links/web-0_default_app-abc123.log');
  });

  it('cuts a name longer than 255 bytes before its .log, as ext4 needs', () => {
    const id = 'f'.repeat(64);
    const link = legacyLogSymlink('/d', id, 'c'.repeat(63), 'p'.repeat(253), 'n'.repeat(63));
    const name = link.slice('/d/'.length);
    expect(name).toHaveLength(255);
    expect(name.endsWith(`${'p'.repeat(251)}.log`)).toBe(true);
  });
});
