import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { imageIdFor, normalizeImageRef } from '../../../../src/adapters/embedded-runtime/images/image-ref.js';
import { DEFAULT_EMBEDDED_IMAGES, ImageStore, NOMINAL_IMAGE_SIZE_BYTES } from '../../../../src/adapters/embedded-runtime/images/image-store.js';

describe('normalizeImageRef', () => {
  it.each([
    ['busybox', 'docker.io/library/busybox:latest'],
    ['busybox:1.36', 'docker.io/library/busybox:1.36'],
    ['docker.io/busybox', 'docker.io/library/busybox:latest'],
    ['library/busybox:1', 'docker.io/library/busybox:1'],
    ['someone/tool', 'docker.io/someone/tool:latest'],
    ['kubelet-ts.local/busybox:1.0', 'kubelet-ts.local/busybox:1.0'],
    ['localhost/x', 'localhost/x:latest'],
    ['127.0.0.1:5000/x/y:2', '127.0.0.1:5000/x/y:2'],
    ['registry.k8s.io/pause@sha256:abc', 'registry.k8s.io/pause@sha256:abc'],
  ])('%s → %s', (ref, normalized) => {
    expect(normalizeImageRef(ref)).toBe(normalized);
  });
});

let dir: string;
beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'klt-images-')); });
afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

describe('ImageStore', () => {
  it('has the seeded images, by name, normalized name, full id and bare id', async () => {
    const store = await ImageStore.open(dir, DEFAULT_EMBEDDED_IMAGES);
    const id = imageIdFor('kubelet-ts.local/pause:1.0');
    expect(store.list().map((i) => i.repo_tags[0])).toEqual(['kubelet-ts.local/busybox:1.0', 'kubelet-ts.local/pause:1.0']);
    expect(store.find('kubelet-ts.local/pause:1.0')).toMatchObject({ id, size: String(NOMINAL_IMAGE_SIZE_BYTES), repo_digests: [] });
    // Containers run as the runtime's user unless they ask otherwise: that is the image's user.
    expect(store.find('kubelet-ts.local/pause:1.0')?.uid).toEqual({ value: String(process.getuid!()) });
    expect(store.find(id)?.repo_tags).toEqual(['kubelet-ts.local/pause:1.0']);
    expect(store.find(id.slice('sha256:'.length))?.id).toBe(id);
    expect(store.find('kubelet-ts.local/pause:2.0')).toBeUndefined();
  });

  it('persists pulled images across reopen, and forgets removed ones (removing twice is fine)', async () => {
    const store = await ImageStore.open(dir, []);
    const pulled = await store.record('busybox:1.36');
    expect(pulled.repo_tags).toEqual(['docker.io/library/busybox:1.36']);
    expect((await ImageStore.open(dir, [])).find('docker.io/library/busybox:1.36')?.id).toBe(pulled.id);
    await store.remove('busybox:1.36');
    await store.remove('busybox:1.36');
    expect((await ImageStore.open(dir, [])).list()).toEqual([]);
  });

  it('starts from the seeds alone when images.json is torn', async () => {
    await writeFile(join(dir, 'images.json'), '{"pulled":[');
    const store = await ImageStore.open(dir, ['a.local/x:1']);
    expect(store.list().map((i) => i.repo_tags[0])).toEqual(['a.local/x:1']);
  });
});
