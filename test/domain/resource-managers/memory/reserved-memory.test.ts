import { describe, expect, it } from 'vitest';
import { memoryReservationError, reservedByNode, type ReservationInput } from '../../../../src/domain/resource-managers/memory/reserved-memory.js';

const input = (extra: Partial<ReservationInput>): ReservationInput => ({
  numaNodes: [0, 1], memoryCapacityBytes: 8 * 2 ** 30, kubeReserved: {}, systemReserved: {}, evictionHard: { 'memory.available': '100Mi' }, reservedMemory: [], ...extra,
});

describe('reservedMemory for the Static memory manager', () => {
  it('accepts a reservation equal to kube-reserved + system-reserved + the hard eviction threshold', () => {
    expect(memoryReservationError(input({
      kubeReserved: { memory: '500Mi' }, systemReserved: { memory: '400Mi' },
      reservedMemory: [{ numaNode: 0, limits: { memory: '600Mi' } }, { numaNode: 1, limits: { memory: '400Mi' } }],
    }))).toBeNull();
  });

  it('refuses a total that differs, printing both amounts as Go does', () => {
    expect(memoryReservationError(input({ reservedMemory: [{ numaNode: 0, limits: { memory: '1Gi' } }] }))).toBe(
      'the total amount "1Gi" of type "memory" is not equal to the value "100Mi" determined by Node Allocatable feature',
    );
    expect(memoryReservationError(input({ evictionHard: {}, kubeReserved: { memory: '1G' }, reservedMemory: [{ numaNode: 0, limits: { memory: '1M' } }] }))).toBe(
      'the total amount "1M" of type "memory" is not equal to the value "1G" determined by Node Allocatable feature',
    );
  });

  it('counts a percentage threshold on the machine\'s memory', () => {
    expect(memoryReservationError(input({ evictionHard: { 'memory.available': '50%' }, reservedMemory: [{ numaNode: 1, limits: { memory: '4Gi' } }] }))).toBeNull();
  });

  it('checks hugepages reservations against kube/system-reserved hugepages', () => {
    expect(memoryReservationError(input({ reservedMemory: [{ numaNode: 0, limits: { memory: '100Mi', 'hugepages-2Mi': '4Mi' } }] }))).toBe(
      'the total amount "4Mi" of type "hugepages-2Mi" is not equal to the value "0" determined by Node Allocatable feature',
    );
  });

  it('refuses a NUMA node the machine does not have', () => {
    expect(memoryReservationError(input({ reservedMemory: [{ numaNode: 2, limits: { memory: '100Mi' } }] }))).toBe(
      'the reserved memory configuration references a NUMA node 2 that does not exist on this machine',
    );
  });

  it('needs some regular memory reserved', () => {
    expect(memoryReservationError(input({ evictionHard: {} }))).toBe('[memorymanager] you should specify the system reserved memory');
  });

  it('gives the bytes reserved per node', () => {
    expect(reservedByNode([{ numaNode: 0, limits: { memory: '1Gi', 'hugepages-2Mi': '2Mi' } }])).toEqual({ 0: { memory: 2 ** 30, 'hugepages-2Mi': 2 ** 21 } });
  });
});
