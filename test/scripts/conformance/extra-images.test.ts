import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildImage, EXTRA_IMAGES, NONROOT_USER, sharedLibraries } from '../../../scripts/conformance/extra-images.js';

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

describe('buildImage', () => {
  let work = '';
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'klt-extra-images-'));
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  /** The archive's image name, its layers and its config, as ctr import would read them. */
  const readArchive = (archive: string) => {
    const dir = mkdtempSync(join(work, 'read-'));
    execFileSync('tar', ['-C', dir, '-xf', archive]);
    const blob = (digest: string) => JSON.parse(readFileSync(join(dir, 'blobs/sha256', digest.replace('sha256:', '')), 'utf8')) as Record<string, unknown>;
    const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as { manifests: { digest: string; annotations: Record<string, string> }[] };
    const manifest = blob(index.manifests[0]!.digest) as { config: { digest: string }; layers: { digest: string }[] };
    const config = blob(manifest.config.digest) as { config: Record<string, unknown>; rootfs: { diff_ids: string[] } };
    return { name: index.manifests[0]!.annotations['io.containerd.image.name'], layers: manifest.layers.map((l) => l.digest), config };
  };

  it('names nonroot as the suite pulls it and gives it the base\'s layers alone with the user of the upstream Dockerfile', () => {
    const root = join(work, 'root');
    mkdirSync(join(root, 'bin'), { recursive: true });
    writeFileSync(join(root, 'bin', 'id'), '#!/bin/sh\n');
    const base = join(work, 'busybox.tar');
    buildImage({ ref: 'registry.k8s.io/e2e-test-images/busybox:1.29-4', root, out: base, work, process: { Cmd: ['sh'] } });
    const out = join(work, 'nonroot.tar');
    buildImage({ ref: EXTRA_IMAGES.nonroot, base, out, work, process: { User: NONROOT_USER } });

    const from = readArchive(base);
    const made = readArchive(out);
    expect(made.name).toBe('registry.k8s.io/e2e-test-images/nonroot:1.4');
    expect(made.layers).toEqual(from.layers);
    expect(made.config.rootfs.diff_ids).toEqual(from.config.rootfs.diff_ids);
    expect(made.config.config).toMatchObject({ User: '1234', Cmd: ['sh'] });
    expect(from.config.config.User).toBeUndefined();
  });
});
