import { pino } from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { createImageManager, type ImageManager } from '../../../src/actors/runtime-manager/image-manager.js';
import { KubeletError } from '../../../src/domain/errors.js';
import type { Container, Pod } from '../../../src/domain/pod/types.js';
import type { PodSandboxConfig } from '../../../src/ports/cri.js';
import { FakeCri } from '../../fakes/fake-cri.js';

const sandboxConfig: PodSandboxConfig = { metadata: { name: 'p', namespace: 'ns', uid: 'u', attempt: 0 } };
const pod: Pod = { metadata: { name: 'p', namespace: 'ns', uid: 'u', annotations: { team: 'a' } }, spec: { containers: [] } };

let now = 0;
let cri: FakeCri;
let images: ImageManager;

beforeEach(() => {
  now = 0;
  cri = new FakeCri();
  images = createImageManager({ cri, clock: { now: () => now, setTimeout: () => undefined, clearTimeout: () => undefined }, logger: pino({ level: 'silent' }) });
});

async function codeOf(container: Container): Promise<string | undefined> {
  return images.ensureImageExists(pod, container, sandboxConfig).then(() => undefined, (err: unknown) => (err as KubeletError).code);
}

describe('imageManager.ensureImageExists', () => {
  it('returns the present image id without pulling under IfNotPresent', async () => {
    const image = cri.addImage('app:1');
    await expect(images.ensureImageExists(pod, { name: 'c', image: 'app:1' }, sandboxConfig)).resolves.toEqual({ ref: image.id });
    expect(cri.calls).toEqual(['imageStatus app:1']);
  });

  it('asks for the image with the default tag and the pod annotations, and pulls under Always', async () => {
    await images.ensureImageExists(pod, { name: 'c', image: 'app' }, sandboxConfig);
    expect(cri.calls).toEqual(['imageStatus app:latest', 'pullImage app:latest']);
  });

  it.each<[string, Container, () => void, string]>([
    ['an invalid name', { name: 'c', image: 'Not Valid' }, () => undefined, 'KLT_ERR_IMAGE_NAME_INVALID'],
    ['a failing ImageStatus', { name: 'c', image: 'app:1' }, () => cri.failNext('imageStatus'), 'KLT_ERR_IMAGE_INSPECT'],
    ['Never with the image absent', { name: 'c', image: 'app:1', imagePullPolicy: 'Never' }, () => undefined, 'KLT_ERR_IMAGE_NEVER_PULL'],
    ['a failing pull', { name: 'c', image: 'app:1' }, () => cri.failNext('pullImage', new KubeletError('KLT_ERR_CRI_FAILED', 'no such host')), 'KLT_ERR_IMAGE_PULL'],
  ])('fails %s with its code', async (_, container, arrange, code) => {
    arrange();
    expect(await codeOf(container)).toBe(code);
  });

  it('keeps back-off per pod and image', async () => {
    cri.failNext('pullImage');
    expect(await codeOf({ name: 'c', image: 'app:1' })).toBe('KLT_ERR_IMAGE_PULL');
    expect(await codeOf({ name: 'c', image: 'app:1' })).toBe('KLT_ERR_IMAGE_PULL_BACKOFF');
    // Another image of the same pod is not held back.
    expect(await codeOf({ name: 'd', image: 'other:1' })).toBeUndefined();
    now += 10_000;
    expect(await codeOf({ name: 'c', image: 'app:1' })).toBeUndefined();
  });
});
