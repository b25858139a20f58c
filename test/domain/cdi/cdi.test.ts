import { describe, expect, it } from 'vitest';
import { resolveCdiDevices, withCdiEnv, type LoadedCdiSpec } from '../../../src/domain/cdi/cdi-registry.js';
import { parseQualifiedName, validateCdiSpec, type CdiSpec } from '../../../src/domain/cdi/cdi-spec.js';

describe('parseQualifiedName', () => {
  it('splits <vendor>/<class>=<name>', () => {
    expect(parseQualifiedName('gpu.example.com/test=claim-1a2b-big')).toEqual({ vendor: 'gpu.example.com', class: 'test', name: 'claim-1a2b-big' });
    expect(parseQualifiedName('v/c=x')).toEqual({ vendor: 'v', class: 'c', name: 'x' });
    expect(parseQualifiedName('v/c=0:1')).toEqual({ vendor: 'v', class: 'c', name: '0:1' });
  });

  it('names what is wrong, in the CDI library\'s words', () => {
    expect(parseQualifiedName('gpu0')).toBe('unqualified device "gpu0", missing vendor');
    expect(parseQualifiedName('/dev/gpu0')).toBe('unqualified device "/dev/gpu0", missing vendor');
    expect(parseQualifiedName('v/c=')).toBe('unqualified device "v/c=", missing device name');
    expect(parseQualifiedName('9v/c=x')).toBe('invalid device "9v/c=x": invalid vendor. "9v", should start with letter');
    expect(parseQualifiedName('v/c!d=x')).toBe('invalid device "v/c!d=x": invalid class. invalid character \'!\' in name "c!d"');
    expect(parseQualifiedName('v/c=x-')).toBe('invalid device "v/c=x-": invalid name "x-", should end with a letter or digit');
    expect(parseQualifiedName('v/c=a/b')).toBe('invalid device "v/c=a/b": invalid character \'/\' in device name "a/b"');
  });
});

describe('validateCdiSpec', () => {
  const spec = (extra: Record<string, unknown> = {}) => ({ cdiVersion: '0.3.0', kind: 'v.example.com/test', devices: [{ name: 'd1', containerEdits: { env: ['A=1'] } }], ...extra });

  it('accepts a spec with devices that have edits', () => {
    expect(validateCdiSpec(spec())).toEqual(spec());
  });

  it('refuses what the specification does not allow, saying what', () => {
    expect(validateCdiSpec([])).toBe('not an object');
    expect(validateCdiSpec(spec({ cdiVersion: undefined }))).toBe('no cdiVersion');
    expect(validateCdiSpec(spec({ kind: 'novendor' }))).toBe('invalid kind "novendor": not <vendor>/<class>');
    expect(validateCdiSpec(spec({ devices: [] }))).toBe('no devices');
    expect(validateCdiSpec(spec({ devices: [{ name: 'd1', containerEdits: {} }] }))).toBe('devices[0]: device "d1" has no edits');
    expect(validateCdiSpec(spec({ devices: [{ name: 'd1', containerEdits: { env: ['A=1'] } }, { name: 'd1', containerEdits: { env: ['B=1'] } }] }))).toBe('devices[1]: device "d1" is defined twice');
    expect(validateCdiSpec(spec({ devices: [{ name: 'd1', containerEdits: { env: ['=1'] } }] }))).toBe('devices[0].containerEdits.env: "=1" is not NAME=value');
    expect(validateCdiSpec(spec({ devices: [{ name: 'd1', containerEdits: { mounts: [{ hostPath: '/x' }] } }] }))).toBe('devices[0].containerEdits.mounts: a mount without hostPath or containerPath');
  });
});

describe('resolveCdiDevices', () => {
  const loaded = (path: string, priority: number, spec: CdiSpec): LoadedCdiSpec => ({ path, priority, spec });
  const etc = loaded('/etc/cdi/gpu.json', 0, {
    cdiVersion: '0.5.0', kind: 'gpu.example.com/gpu', containerEdits: { env: ['GPU_DRIVER=1'] },
    devices: [{ name: 'g0', containerEdits: { env: ['GPU=0'], deviceNodes: [{ path: '/dev/gpu0' }] } }, { name: 'g1', containerEdits: { env: ['GPU=1'] } }],
  });

  it('collects the devices\' edits in order, each spec\'s own edits once before its first device', () => {
    expect(resolveCdiDevices([etc], ['gpu.example.com/gpu=g1', 'gpu.example.com/gpu=g0'])).toEqual({
      ok: true,
      edits: { env: ['GPU_DRIVER=1', 'GPU=1', 'GPU=0'], deviceNodes: [{ path: '/dev/gpu0' }], mounts: [], hooks: [], additionalGids: [] },
    });
  });

  it('lets a spec of a later directory hide an earlier one\'s device; two at one priority resolve to neither', () => {
    const run = loaded('/var/run/cdi/gpu.json', 1, { cdiVersion: '0.5.0', kind: 'gpu.example.com/gpu', devices: [{ name: 'g0', containerEdits: { env: ['GPU=run'] } }] });
    expect(resolveCdiDevices([run, etc], ['gpu.example.com/gpu=g0'])).toMatchObject({ ok: true, edits: { env: ['GPU=run'] } });
    const twin = { ...run, path: '/var/run/cdi/other.json' };
    expect(resolveCdiDevices([run, twin], ['gpu.example.com/gpu=g0'])).toEqual({
      ok: false,
      error: 'unresolvable CDI devices gpu.example.com/gpu=g0 (conflicting device "gpu.example.com/gpu=g0" (specs "/var/run/cdi/gpu.json", "/var/run/cdi/other.json"))',
    });
  });

  it('names every device it cannot resolve, with why', () => {
    expect(resolveCdiDevices([etc], ['gpu.example.com/gpu=g9', 'gpu0', 'gpu.example.com/gpu=g0'])).toEqual({
      ok: false,
      error: 'unresolvable CDI devices gpu.example.com/gpu=g9 (no spec defines it), gpu0 (unqualified device "gpu0", missing vendor)',
    });
  });

  it('applies env edits over the container\'s own: a name already set takes the edit\'s value', () => {
    expect(withCdiEnv([{ key: 'A', value: 'mine' }, { key: 'B', value: 'b' }], { env: ['A=cdi', 'C=x=y'] })).toEqual([
      { key: 'A', value: 'cdi' }, { key: 'B', value: 'b' }, { key: 'C', value: 'x=y' },
    ]);
  });
});
