import { describe, expect, it } from 'vitest';
import { KubeletError } from '../../../src/domain/errors.js';
import type { VolumeMount } from '../../../src/domain/pod/types.js';
import { criMountPropagation } from '../../../src/domain/runtime/mount-propagation.js';
import { containerSubPath, expandSubPathExpr, validateVolumeMountSubPath } from '../../../src/domain/runtime/subpath.js';

const env = [
  { name: 'POD_NAME', value: 'web-0' },
  { name: 'NS', value: 'shop' },
  { name: 'EMPTY', value: '' },
  { name: 'ABS', value: '/etc' },
  { name: 'UP', value: '..' },
  { name: 'NS', value: 'shop-2' },
];

const mount = (m: Partial<VolumeMount>): VolumeMount => ({ name: 'data', mountPath: '/data', ...m });

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    return err instanceof KubeletError ? err.code : 'not a KubeletError';
  }
  return undefined;
};

describe('containerSubPath', () => {
  it.each([
    ['no subPath at all', {}, ''],
    ['subPath as written', { subPath: 'logs/app' }, 'logs/app'],
    ['subPathExpr expanded from the env', { subPathExpr: '$(NS)/$(POD_NAME)' }, 'shop-2/web-0'],
    ['an escaped reference stays literal', { subPathExpr: 'x/$$(POD_NAME)' }, 'x/$(POD_NAME)'],
    ['a name merely containing dots is fine', { subPath: 'a..b/..c' }, 'a..b/..c'],
  ])('%s', (_, m, expected) => {
    expect(containerSubPath(mount(m), env)).toBe(expected);
  });

  it.each([
    ['an absolute subPath', { subPath: '/etc' }],
    ['a subPath with ..', { subPath: 'a/../../etc' }],
    ['an expansion that is absolute', { subPathExpr: '$(ABS)/x' }],
    ['an expansion that steps back', { subPathExpr: 'a/$(UP)/$(UP)' }],
    ['an unset variable', { subPathExpr: '$(NOPE)' }],
    ['an empty variable', { subPathExpr: 'a/$(EMPTY)' }],
    ['subPath and subPathExpr together', { subPath: 'a', subPathExpr: 'b' }],
  ])('refuses %s as a container config error', (_, m) => {
    expect(codeOf(() => containerSubPath(mount(m), env))).toBe('KLT_ERR_CONTAINER_CONFIG');
  });
});

describe('expandSubPathExpr', () => {
  it('refuses a reference to any unset or empty variable, and keeps a set one', () => {
    expect(codeOf(() => expandSubPathExpr('$(ZED)/$(EMPTY)/$(ZED)/$(ALPHA)', env))).toBe('KLT_ERR_CONTAINER_CONFIG');
    expect(codeOf(() => expandSubPathExpr('$()', env))).toBe('KLT_ERR_CONTAINER_CONFIG');
    expect(expandSubPathExpr('$(POD_NAME)', env)).toBe('web-0');
  });
});

describe('validateVolumeMountSubPath', () => {
  const list = 'spec.containers[0].volumeMounts';

  it('accepts relative paths without ..', () => {
    expect(validateVolumeMountSubPath(mount({ subPath: 'a/b' }), list, 0)).toEqual([]);
    expect(validateVolumeMountSubPath(mount({ subPathExpr: '$(POD_NAME)' }), list, 0)).toEqual([]);
  });

  it('refuses an absolute path, a .., and both fields at once, each once', () => {
    expect(validateVolumeMountSubPath(mount({ subPath: '/a/../b' }), list, 0)).toHaveLength(2);
    expect(validateVolumeMountSubPath(mount({ subPathExpr: '../../x' }), list, 0)).toHaveLength(1);
    expect(validateVolumeMountSubPath(mount({ subPath: 'a', subPathExpr: 'b' }), list, 3)).toHaveLength(1);
  });
});

describe('criMountPropagation', () => {
  it.each([
    [undefined, 'PROPAGATION_PRIVATE'],
    ['None', 'PROPAGATION_PRIVATE'],
    ['HostToContainer', 'PROPAGATION_HOST_TO_CONTAINER'],
    ['Bidirectional', 'PROPAGATION_BIDIRECTIONAL'],
  ] as const)('%s is %s', (mode, expected) => {
    expect(criMountPropagation(mode)).toBe(expected);
  });

  it('refuses a mode a manifest made up', () => {
    expect(codeOf(() => criMountPropagation('Sideways' as never))).toBe('KLT_ERR_CONTAINER_CONFIG');
  });
});
