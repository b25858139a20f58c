/**
 * The merge of a container's Allocate answers, as Go's deviceRunContainerOptions resolves
 * duplicates (first wins, a different value is a conflict), and its cost: linear, so a plugin's
 * long answer cannot stall the kubelet.
 */
import { describe, expect, it } from 'vitest';
import { mergeAllocations, type ContainerAllocation } from '../../../src/domain/device-manager/container-allocation.js';

const answer = (a: Partial<ContainerAllocation>): ContainerAllocation => ({ envs: {}, mounts: [], devices: [], annotations: {}, cdiDevices: [], ...a });

describe('mergeAllocations', () => {
  it('keeps the first setting within one answer too, and reports a conflict only when the value differs', () => {
    const { runtime, conflicts } = mergeAllocations({
      'a.com/r': answer({
        mounts: [{ containerPath: '/m', hostPath: '/a', readOnly: false }, { containerPath: '/m', hostPath: '/a', readOnly: true }, { containerPath: '/m', hostPath: '/b', readOnly: false }],
        devices: [{ containerPath: '/dev/x', hostPath: '/dev/a', permissions: 'rw' }, { containerPath: '/dev/x', hostPath: '/dev/a', permissions: 'r' }],
        cdiDevices: ['v.com/c=a', 'v.com/c=a'],
      }),
    });
    // Go compares host paths only: a second read-only mount or other permissions of the same path are dropped silently.
    expect(runtime.mounts).toEqual([{ containerPath: '/m', hostPath: '/a', readOnly: false }]);
    expect(runtime.devices).toEqual([{ containerPath: '/dev/x', hostPath: '/dev/a', permissions: 'rw' }]);
    expect(runtime.cdiDevices).toEqual(['v.com/c=a']);
    expect(conflicts).toEqual([{ resource: 'a.com/r', kind: 'mount', key: '/m', kept: '/a', dropped: '/b' }]);
  });

  it('reports each conflict against the resource whose setting was dropped, resources in name order', () => {
    const a = answer({ envs: { X: 'a', S: 'same' }, devices: [{ containerPath: '/dev/x', hostPath: '/dev/a', permissions: 'rw' }], annotations: { k: 'a' } });
    const b = answer({ envs: { X: 'b', S: 'same' }, devices: [{ containerPath: '/dev/x', hostPath: '/dev/b', permissions: 'rw' }], annotations: { k: 'b' } });
    const { runtime, conflicts } = mergeAllocations({ 'z.com/b': b, 'a.com/a': a });
    expect(runtime.envs).toEqual({ X: 'a', S: 'same' });
    expect(runtime.annotations).toEqual({ k: 'a' });
    expect(conflicts).toEqual([
      { resource: 'z.com/b', kind: 'env', key: 'X', kept: 'a', dropped: 'b' },
      { resource: 'z.com/b', kind: 'device', key: '/dev/x', kept: '/dev/a', dropped: '/dev/b' },
      { resource: 'z.com/b', kind: 'annotation', key: 'k', kept: 'a', dropped: 'b' },
    ]);
  });

  it('keeps variables named like Object\'s own properties as variables', () => {
    const envs = JSON.parse('{"__proto__":"p","constructor":"c","toString":"t"}') as Record<string, string>;
    const { runtime } = mergeAllocations({ r: answer({ envs }) });
    expect(Object.entries(runtime.envs)).toEqual([['__proto__', 'p'], ['constructor', 'c'], ['toString', 't']]);
    expect(Object.getPrototypeOf(runtime.envs)).toBe(Object.prototype);
  });

  it('merges 80,000 mounts and device nodes, half of them duplicates, in linear time', () => {
    const n = 80_000;
    const mounts = Array.from({ length: n }, (_, i) => ({ containerPath: `/m/${i % (n / 2)}`, hostPath: `/h/${i}`, readOnly: false }));
    const devices = Array.from({ length: n }, (_, i) => ({ containerPath: `/dev/d${i % (n / 2)}`, hostPath: `/dev/h${i % (n / 2)}`, permissions: 'rw' }));
    const started = performance.now();
    const { runtime, conflicts } = mergeAllocations({ a: answer({ mounts: mounts.slice(0, n / 2) }), b: answer({ mounts: mounts.slice(n / 2), devices }) });
    const elapsedMs = performance.now() - started;
    expect(runtime.mounts).toHaveLength(n / 2);
    expect(runtime.mounts[n / 2 - 1]).toEqual({ containerPath: `/m/${n / 2 - 1}`, hostPath: `/h/${n / 2 - 1}`, readOnly: false });
    expect(runtime.devices).toHaveLength(n / 2);
    // Every second-half mount has another host path than the first: one conflict each; the devices repeat exactly.
    expect(conflicts).toHaveLength(n / 2);
    // Generous for a loaded 2-core machine: a linear merge takes milliseconds, the quadratic one took many seconds.
    expect(elapsedMs).toBeLessThan(2_000);
  });
});
