import { describe, expect, it } from 'vitest';
import { sharedLibraries } from '../../../scripts/conformance/extra-images.js';

describe('sharedLibraries', () => {
  it('lists each library ldd resolves and the loader, once, and leaves the vDSO out', () => {
    const ldd = [
      '\tlinux-vdso.so.1 (0x00007ffd5a1f2000)',
      '\tlibcurl.so.4 => /lib/x86_64-linux-gnu/libcurl.so.4 (0x00007f0e8c2e1000)',
      '\tlibz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x00007f0e8c2c2000)',
      '\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f0e8c0e1000)',
      '\tlibz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x00007f0e8c2c2000)',
      '\t/lib64/ld-linux-x86-64.so.2 (0x00007f0e8c3a6000)',
    ].join('\n');
    expect(sharedLibraries(ldd)).toEqual([
      '/lib/x86_64-linux-gnu/libcurl.so.4', '/lib/x86_64-linux-gnu/libz.so.1', '/lib/x86_64-linux-gnu/libc.so.6', '/lib64/ld-linux-x86-64.so.2',
    ]);
  });

  it('finds nothing in a static binary', () => {
    expect(sharedLibraries('\tnot a dynamic executable')).toEqual([]);
  });
});
