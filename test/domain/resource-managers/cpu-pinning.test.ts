import { describe, expect, it } from 'vitest';
import { cpuPinningCounts } from '../../../src/domain/resource-managers/cpu-pinning.js';
import { EMPTY_INVENTORY } from '../../../src/domain/resource-managers/inventory.js';
import type { Container, Pod } from '../../../src/domain/pod/types.js';
import { inventory, machine } from './topologies.js';

const c = (name: string, cpu: string): Container => ({ name, image: 'busybox', resources: { requests: { cpu, memory: '1Mi' }, limits: { cpu, memory: '1Mi' } } });
const pod: Pod = { metadata: { name: 'p', uid: 'p' }, spec: { initContainers: [c('init', '1')], containers: [c('a', '2'), c('b', '500m'), c('d', '1')] } };
const withCpu = { ...EMPTY_INVENTORY, cpu: inventory(machine(1, 4, 1), [0]) };

describe('cpuPinningCounts (Go’s cpu_manager_pinning_requests_total and _errors_total)', () => {
  it('counts every container asking for whole CPUs of an admitted pod', () => {
    expect(cpuPinningCounts(pod, withCpu, { admit: true, assignment: {} })).toEqual({ requests: 3, errors: 0 });
  });

  it('counts up to the container the CPU manager refused, and one error', () => {
    expect(cpuPinningCounts(pod, withCpu, { admit: false, reason: 'r', message: 'm', container: 'a', provider: 'cpu' })).toEqual({ requests: 2, errors: 1 });
  });

  it('does not count a container refused before it reached the CPU manager', () => {
    expect(cpuPinningCounts(pod, withCpu, { admit: false, reason: 'r', message: 'm', container: 'a', provider: 'devices' })).toEqual({ requests: 1, errors: 0 });
    expect(cpuPinningCounts(pod, withCpu, { admit: false, reason: 'r', message: 'm', container: 'd' })).toEqual({ requests: 2, errors: 0 });
  });

  it('counts nothing with the none policy', () => {
    expect(cpuPinningCounts(pod, EMPTY_INVENTORY, { admit: true, assignment: {} })).toEqual({ requests: 0, errors: 0 });
  });
});
