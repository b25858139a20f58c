import { describe, expect, it } from 'vitest';
import { applyDefaultImageTag, defaultPullPolicy, parseImageReference, shouldPullImage } from '../../../src/domain/runtime/image-policy.js';
import type { PullPolicy } from '../../../src/domain/pod/types.js';

const digest = `sha256:${'a'.repeat(64)}`;

describe('defaultPullPolicy', () => {
  it.each<[string, PullPolicy]>([
    ['busybox', 'Always'],
    ['busybox:latest', 'Always'],
    ['docker.io/library/busybox', 'Always'],
    ['localhost:5000/app', 'Always'],
    ['busybox:1.36', 'IfNotPresent'],
    ['localhost:5000/app:v2', 'IfNotPresent'],
    [`busybox@${digest}`, 'IfNotPresent'],
    [`busybox:latest@${digest}`, 'Always'],
  ])('%s → %s', (image, policy) => {
    expect(defaultPullPolicy(image)).toBe(policy);
  });
});

describe('applyDefaultImageTag', () => {
  it.each([
    ['busybox', 'busybox:latest'],
    ['registry.k8s.io/pause:3.10', 'registry.k8s.io/pause:3.10'],
    ['localhost:5000/app', 'localhost:5000/app:latest'],
    [`busybox@${digest}`, `busybox@${digest}`],
  ])('%s → %s', (image, expected) => {
    expect(applyDefaultImageTag(image)).toBe(expected);
  });

  it.each(['', 'Busybox', 'bad image', 'a:b:c'])('rejects %j with KLT_ERR_IMAGE_NAME_INVALID', (image) => {
    expect(() => applyDefaultImageTag(image)).toThrow(expect.objectContaining({ code: 'KLT_ERR_IMAGE_NAME_INVALID' }));
  });
});

describe('parseImageReference', () => {
  it('separates registry/path, tag and digest', () => {
    expect(parseImageReference(`ghcr.io:443/org/app:v1@${digest}`)).toEqual({ name: 'ghcr.io:443/org/app', tag: 'v1', digest });
  });
});

describe('shouldPullImage', () => {
  it.each<[PullPolicy, boolean, boolean]>([
    ['Always', true, true],
    ['Always', false, true],
    ['IfNotPresent', true, false],
    ['IfNotPresent', false, true],
    ['Never', true, false],
    ['Never', false, false],
  ])('%s with the image present=%s → pull=%s', (policy, present, pull) => {
    expect(shouldPullImage(policy, present)).toBe(pull);
  });
});
