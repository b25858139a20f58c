import { describe, expect, it } from 'vitest';
import type { VolumeMount } from '../../../src/domain/pod/types.js';
import { resolveRecursiveReadOnly, volumeMountStatuses } from '../../../src/domain/runtime/recursive-read-only.js';

const mount = (over: Partial<VolumeMount>): VolumeMount => ({ name: 'data', mountPath: '/data', ...over });

describe('resolveRecursiveReadOnly', () => {
  it('is off unless asked for, and IfPossible is as much as the runtime can', () => {
    expect(resolveRecursiveReadOnly(mount({ readOnly: true }), true)).toBe(false);
    expect(resolveRecursiveReadOnly(mount({ readOnly: true, recursiveReadOnly: 'Disabled' }), true)).toBe(false);
    expect(resolveRecursiveReadOnly(mount({ readOnly: true, recursiveReadOnly: 'IfPossible' }), false)).toBe(false);
    expect(resolveRecursiveReadOnly(mount({ readOnly: true, recursiveReadOnly: 'IfPossible' }), true)).toBe(true);
    expect(resolveRecursiveReadOnly(mount({ readOnly: true, recursiveReadOnly: 'Enabled' }), true)).toBe(true);
  });

  it.each([
    ['Enabled on a runtime that cannot', mount({ readOnly: true, recursiveReadOnly: 'Enabled' }), 'volume "data" requested recursive read-only mode, but it is not supported by the runtime'],
    ['a mount that is not read-only', mount({ recursiveReadOnly: 'IfPossible' }), 'volume "data" requested recursive read-only mode, but it is not read-only'],
    ['a propagating mount', mount({ readOnly: true, recursiveReadOnly: 'Enabled', mountPropagation: 'HostToContainer' }), 'volume "data" requested recursive read-only mode, but it is not compatible with propagation "HostToContainer"'],
  ])('fails the container for %s, in Go\'s words', (_what, m, why) => {
    expect(() => resolveRecursiveReadOnly(m, false)).toThrow(expect.objectContaining({
      code: 'KLT_ERR_CONTAINER_CONFIG', message: `failed to resolve recursive read-only mode: ${why}`,
    }));
  });
});

describe('volumeMountStatuses', () => {
  it('lists each mount, with the recursive mode a read-only one got', () => {
    const container = { name: 'app', image: 'busybox', volumeMounts: [
      mount({ name: 'rw', mountPath: '/rw' }),
      mount({ name: 'ro', mountPath: '/ro', readOnly: true }),
      mount({ name: 'rro', mountPath: '/rro', readOnly: true, recursiveReadOnly: 'Enabled' }),
    ] };
    expect(volumeMountStatuses(container, false)).toEqual([
      { name: 'rw', mountPath: '/rw' },
      { name: 'ro', mountPath: '/ro', readOnly: true, recursiveReadOnly: 'Disabled' },
      { name: 'rro', mountPath: '/rro', readOnly: true, recursiveReadOnly: 'Disabled' },
    ]);
    expect(volumeMountStatuses(container, true)[2]).toMatchObject({ recursiveReadOnly: 'Enabled' });
  });
});
