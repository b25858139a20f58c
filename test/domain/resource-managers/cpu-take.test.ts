import { describe, expect, it } from 'vitest';
import { cpusWithout } from '../../../src/domain/resource-managers/cpu-set.js';
import { takeByTopologyDistributed, takeByTopologyPacked } from '../../../src/domain/resource-managers/cpu-take.js';
import { machine } from './topologies.js';

// 2 sockets × 4 cores × 2 threads: core c has CPUs c and c+8; socket 0 holds cores 0-3, NUMA node = socket.
const dualSocketHT = machine(2, 4, 2);
const all = dualSocketHT.cpus.map((c) => c.id);

describe('takeByTopologyPacked (2 sockets × 4 cores × 2 threads)', () => {
  it.each([
    [1, [0]],
    [2, [0, 8]],
    [3, [0, 1, 8]],
    [4, [0, 1, 8, 9]],
    [8, [0, 1, 2, 3, 8, 9, 10, 11]],
    [10, [0, 1, 2, 3, 4, 8, 9, 10, 11, 12]],
    [16, all],
  ])('takes %i CPUs from an idle machine as whole NUMA nodes, then whole cores, then threads: %j', (n, expected) => {
    expect(takeByTopologyPacked(dualSocketHT, all, n)).toEqual({ ok: true, cpus: expected });
  });

  it('fills the partly used core of the fullest NUMA node first', () => {
    expect(takeByTopologyPacked(dualSocketHT, cpusWithout(all, [0]), 1)).toEqual({ ok: true, cpus: [8] });
  });

  it('takes a whole socket from the one that is free when the other is partly used', () => {
    expect(takeByTopologyPacked(dualSocketHT, cpusWithout(all, [0]), 8)).toEqual({ ok: true, cpus: [4, 5, 6, 7, 12, 13, 14, 15] });
  });

  it("refuses with Go's message when fewer CPUs are free than asked", () => {
    expect(takeByTopologyPacked(dualSocketHT, [1, 2], 3)).toEqual({ ok: false, message: 'not enough cpus available to satisfy request' });
  });

  it('answers no CPUs for a request of none', () => {
    expect(takeByTopologyPacked(dualSocketHT, all, 0)).toEqual({ ok: true, cpus: [] });
  });

  it('takes sockets first on a machine with several NUMA nodes per socket', () => {
    // 1 socket × 4 cores × 2 threads, 2 NUMA nodes (cores 0-1, 2-3).
    const snc = machine(1, 4, 2, 2);
    const cpus = snc.cpus.map((c) => c.id);
    expect(takeByTopologyPacked(snc, cpus, 4)).toEqual({ ok: true, cpus: [0, 1, 4, 5] });
  });
});

describe('takeByTopologyDistributed (distribute-cpus-across-numa)', () => {
  it('spreads a request that needs both NUMA nodes evenly over them', () => {
    const taken = takeByTopologyDistributed(dualSocketHT, all, 10, 1);
    expect(taken.ok).toBe(true);
    const cpus = taken.ok ? taken.cpus : [];
    expect(cpus.filter((c) => dualSocketHT.cpus[c]!.numaNode === 0)).toHaveLength(5);
    expect(cpus.filter((c) => dualSocketHT.cpus[c]!.numaNode === 1)).toHaveLength(5);
  });

  it('keeps a request one NUMA node can serve on one node', () => {
    expect(takeByTopologyDistributed(dualSocketHT, all, 4, 1)).toEqual({ ok: true, cpus: [0, 1, 8, 9] });
  });

  it('takes whole cores from each node with a group size of 2', () => {
    const taken = takeByTopologyDistributed(dualSocketHT, all, 12, 2);
    expect(taken).toEqual({ ok: true, cpus: [0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14] });
  });

  it('packs a request that is not a multiple of the group size', () => {
    expect(takeByTopologyDistributed(dualSocketHT, all, 3, 2)).toEqual(takeByTopologyPacked(dualSocketHT, all, 3));
  });
});
