import { describe, expect, it } from 'vitest';
import { containerEvent, containerFieldPath, formatPod, goDuration } from '../../../src/domain/runtime/container-events.js';
import type { Pod } from '../../../src/domain/pod/types.js';

const pod: Pod = {
  metadata: { name: 'web', namespace: 'shop', uid: 'u1' },
  spec: { containers: [{ name: 'app', image: 'a' }], initContainers: [{ name: 'setup', image: 'b' }] },
};

describe('container events', () => {
  it('names the container by where it is in the spec, as Go\'s fieldPath does', () => {
    expect(containerFieldPath(pod, 'app')).toBe('spec.containers{app}');
    expect(containerFieldPath(pod, 'setup')).toBe('spec.initContainers{setup}');
    expect(containerFieldPath(pod, 'gone')).toBeUndefined();
    expect(containerEvent(pod, 'gone', 'Normal', 'Killing', 'x')).toBeUndefined();
  });

  it('formats a pod as Go\'s format.Pod', () => {
    expect(formatPod(pod)).toBe('web_shop(u1)');
  });

  it('prints a duration as Go\'s time.Duration does', () => {
    expect(goDuration(0)).toBe('0s');
    expect(goDuration(250)).toBe('250ms');
    expect(goDuration(1_000)).toBe('1s');
    expect(goDuration(1_500)).toBe('1.5s');
    expect(goDuration(2_045)).toBe('2.045s');
    expect(goDuration(123_250)).toBe('2m3.25s');
    expect(goDuration(3_600_000)).toBe('1h0m0s');
  });
});
