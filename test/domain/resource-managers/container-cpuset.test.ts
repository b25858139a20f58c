import { describe, expect, it } from 'vitest';
import { containerCpuset } from '../../../src/domain/resource-managers/container-cpuset.js';

describe('containerCpuset (Go’s PreCreateContainer)', () => {
  it.each([
    ['exclusive CPUs', { cpus: [2, 3, 4, 7] }, [0, 1], { cpus: '2-4,7' }],
    ['the shared pool for a container without its own', {}, [0, 1, 5], { cpus: '0-1,5' }],
    ['nothing with the none policy', undefined, undefined, null],
    ['the memory nodes as a list', { memory: { numaNodes: [1, 0], bytes: { memory: 1 } } }, undefined, { mems: '0,1' }],
  ])('gives %s', (_what, assignment, shared, expected) => {
    expect(containerCpuset(assignment, shared)).toEqual(expected);
  });
});
