import { describe, expect, it } from 'vitest';
import { allocationLimitError, MAX_ALLOCATION_ENTRIES } from '../../../src/domain/device-manager/allocation-limits.js';

const counts = { envs: 0, mounts: 0, devices: 0, annotations: 0, cdiDevices: 0 };

describe('allocationLimitError', () => {
  it('takes an answer with as many entries of each kind as the bound', () => {
    const full = { envs: MAX_ALLOCATION_ENTRIES, mounts: MAX_ALLOCATION_ENTRIES, devices: MAX_ALLOCATION_ENTRIES, annotations: MAX_ALLOCATION_ENTRIES, cdiDevices: MAX_ALLOCATION_ENTRIES };
    expect(allocationLimitError('example.com/r', full)).toBeNull();
  });

  it('refuses one more, naming the resource, the kind and the count', () => {
    expect(allocationLimitError('example.com/r', { ...counts, mounts: 40_000 })).toBe(
      'device plugin for resource "example.com/r" answered Allocate with 40000 mounts for one container, more than the 1024 allowed',
    );
    expect(allocationLimitError('example.com/r', { ...counts, cdiDevices: 1025 })).toMatch(/ 1025 CDI devices /);
    expect(allocationLimitError('example.com/r', { ...counts, envs: 1025 })).toMatch(/ 1025 environment variables /);
  });
});
