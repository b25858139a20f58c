/** One summary for the /metrics/resource and /metrics/cadvisor renderer tests: a node and one pod of two containers. */
import type { Summary } from '../../../src/domain/stats/summary-types.js';

export const T_CPU = '2024-05-01T10:00:02Z';
export const T_MEM = '2024-05-01T10:00:03Z';
export const T_NODE = '2024-05-01T10:00:01Z';
export const MS = (t: string) => Date.parse(t);

export const SUMMARY: Summary = {
  node: {
    nodeName: 'node-1',
    startTime: '2024-04-01T00:00:00Z',
    cpu: { time: T_NODE, usageCoreNanoSeconds: 123_500_000_000n },
    memory: { time: T_NODE, workingSetBytes: 4_000_000_000n, usageBytes: 5_000_000_000n, rssBytes: 1_000n },
  },
  pods: [{
    podRef: { name: 'web', namespace: 'shop "north"\\', uid: 'u1' },
    startTime: '2024-05-01T09:00:00Z',
    containers: [
      {
        name: 'main',
        startTime: '2024-05-01T09:00:05Z',
        cpu: { time: T_CPU, usageCoreNanoSeconds: 1_500_000_000n },
        memory: { time: T_MEM, workingSetBytes: 2048n, usageBytes: 4096n, rssBytes: 1024n },
      },
      // Measured nothing yet: no CPU or memory series, only its start time.
      { name: 'side\ncar', startTime: '2024-05-01T09:00:06Z' },
    ],
    cpu: { time: T_CPU, usageCoreNanoSeconds: 1_500_000_000n },
    memory: { time: T_MEM, workingSetBytes: 2048n },
  }],
};
