import { describe, expect, it } from 'vitest';
import { cpuAndMemoryOnly } from '../../../src/domain/stats/cpu-and-memory.js';
import type { Summary } from '../../../src/domain/stats/summary-types.js';

const T = '2024-05-01T10:00:00Z';

describe('cpuAndMemoryOnly', () => {
  it('keeps cpu, memory and the node\'s swap, and drops file systems and rlimit, as Go\'s GetCPUAndMemoryStats', () => {
    const full: Summary = {
      node: {
        nodeName: 'n', startTime: T, cpu: { time: T, usageCoreNanoSeconds: 1n }, memory: { time: T, workingSetBytes: 2n },
        swap: { time: T, swapUsageBytes: 3n, swapAvailableBytes: 4n }, fs: { time: T, usedBytes: 5n }, rlimit: { time: T, maxpid: 6 },
      },
      pods: [{ podRef: { name: 'p', namespace: 'd', uid: 'u' }, startTime: T, containers: [{ name: 'c', startTime: T, cpu: { time: T }, rootfs: { time: T } }], 'ephemeral-storage': { time: T } }],
    };
    const cut = cpuAndMemoryOnly(full);
    expect(cut.node).toEqual({ nodeName: 'n', startTime: T, cpu: full.node.cpu, memory: full.node.memory, swap: full.node.swap });
    expect(cut.pods).toEqual([{ podRef: full.pods[0]!.podRef, startTime: T, containers: [{ name: 'c', startTime: T, cpu: { time: T } }] }]);
  });
});
