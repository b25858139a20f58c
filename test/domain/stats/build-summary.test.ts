import { describe, expect, it } from 'vitest';
import { buildSummary } from '../../../src/domain/stats/build-summary.js';
import { cpuAndMemoryOnly } from '../../../src/domain/stats/cpu-and-memory.js';
import type { NodeReadings } from '../../../src/domain/stats/node-readings.js';
import { cpuSampleKey, type SummaryInput } from '../../../src/domain/stats/summary-input.js';
import { summaryJson } from '../../../src/domain/stats/summary-json.js';
import { podVolumeStats } from '../../../src/domain/stats/volume-stats.js';
import { summaryShapeProblems } from '../../support/summary-shape.js';

const S = 1_000_000_000n;
const T0 = 1_700_000_000n * S;
const GiB = 1024n ** 3n;
const fs = { capacityBytes: 100n * GiB, availableBytes: 40n * GiB, usedBytes: 60n * GiB, inodes: 1000n, inodesFree: 400n };

const node: NodeReadings = {
  timestampNs: T0 + 10n * S,
  bootTimeNs: T0 - 3600n * S,
  cpuNs: 50n * S,
  memory: { totalBytes: 16n * GiB, freeBytes: 4n * GiB, inactiveFileBytes: 2n * GiB, anonBytes: 3n * GiB, swapTotalBytes: 0n, swapFreeBytes: 0n },
  pageFaults: 100n,
  majorPageFaults: 5n,
  rootFs: fs,
  maxPid: 4194304,
  tasks: 321,
  kubelet: { cpuNs: 2n * S, residentBytes: 90n * 1024n * 1024n, anonBytes: 60n * 1024n * 1024n, minorFaults: 7n, majorFaults: 0n, startTimeNs: T0 },
};

function input(extra: Partial<SummaryInput> = {}): SummaryInput {
  return {
    nodeName: 'node-1',
    node,
    imageFs: { timestampNs: T0, usedBytes: 5n * GiB, inodesUsed: 50n, fs },
    containerFs: null,
    sandboxes: [
      { id: 'sb-old', name: 'web', namespace: 'default', uid: 'u1', ready: false, createdAtNs: T0 - 100n * S },
      { id: 'sb-web', name: 'web', namespace: 'default', uid: 'u1', ready: true, createdAtNs: T0 - 50n * S },
      { id: 'sb-idle', name: 'idle', namespace: 'kube-system', uid: 'u2', ready: true, createdAtNs: T0 },
    ],
    containers: [
      { id: 'c-main', sandboxId: 'sb-web', name: 'main', running: true, createdAtNs: T0 - 40n * S },
      { id: 'c-side', sandboxId: 'sb-web', name: 'side', running: true, createdAtNs: T0 - 30n * S },
      { id: 'c-gone', sandboxId: 'sb-old', name: 'main', running: true, createdAtNs: T0 - 90n * S },
      { id: 'c-exited', sandboxId: 'sb-idle', name: 'job', running: false, createdAtNs: T0 },
    ],
    usage: [
      { containerId: 'c-main', cpu: { timestampNs: T0 + 10n * S, usageCoreNanoSeconds: 4n * S }, memory: { timestampNs: T0 + 10n * S, workingSetBytes: 1000n, rssBytes: 600n } },
      { containerId: 'c-side', cpu: { timestampNs: T0 + 10n * S, usageCoreNanoSeconds: 1n * S, usageNanoCores: 7n }, memory: { timestampNs: T0 + 9n * S, workingSetBytes: 500n } },
      { containerId: 'c-gone', cpu: { timestampNs: T0, usageCoreNanoSeconds: 1n } },
      { containerId: 'c-exited' },
    ],
    logs: new Map([['c-main', { usedBytes: 4096n, inodesUsed: 3n }]]),
    logFs: fs,
    previousCpu: new Map(),
    ...extra,
  };
}

describe('buildSummary', () => {
  it('reports the node from the host readings, as cAdvisor would', () => {
    const { node: n } = buildSummary(input()).summary;
    expect(n.nodeName).toBe('node-1');
    expect(n.startTime).toBe('2023-11-14T21:13:20Z');
    expect(n.cpu).toEqual({ time: '2023-11-14T22:13:30Z', usageCoreNanoSeconds: 50n * S });
    // usage = total − free = 12 GiB; working set = usage − inactive file = 10 GiB; available = total − working set.
    expect(n.memory).toMatchObject({ usageBytes: 12n * GiB, workingSetBytes: 10n * GiB, availableBytes: 6n * GiB, rssBytes: 3n * GiB, pageFaults: 100n, majorPageFaults: 5n });
    expect(n.fs).toMatchObject({ capacityBytes: 100n * GiB, availableBytes: 40n * GiB, usedBytes: 60n * GiB, inodes: 1000n, inodesFree: 400n, inodesUsed: 600n });
    expect(n.runtime?.imageFs).toMatchObject({ usedBytes: 5n * GiB, inodesUsed: 50n, capacityBytes: 100n * GiB });
    expect(n.runtime?.containerFs).toEqual(n.runtime?.imageFs);
    expect(n.rlimit).toMatchObject({ maxpid: 4194304, curproc: 321 });
    expect(n.swap).toBeUndefined();
    expect(n.systemContainers?.map((c) => [c.name, c.memory?.workingSetBytes])).toEqual([['kubelet', 90n * 1024n * 1024n]]);
  });

  it('has one pod per current sandbox with running containers, as Go drops terminated pods and containers', () => {
    const { pods } = buildSummary(input()).summary;
    expect(pods.map((p) => [p.podRef, p.startTime, p.containers.map((c) => c.name)])).toEqual([
      [{ name: 'web', namespace: 'default', uid: 'u1' }, '2023-11-14T22:12:30Z', ['main', 'side']],
    ]);
  });

  it('sums the containers into the pod and counts rootfs and logs as ephemeral storage', () => {
    const [pod] = buildSummary(input()).summary.pods;
    const main = pod!.containers[0]!;
    expect(main.startTime).toBe('2023-11-14T22:12:40Z');
    expect(main.logs).toMatchObject({ usedBytes: 4096n, inodesUsed: 3n, capacityBytes: 100n * GiB });
    expect(main.rootfs).toBeUndefined();
    expect(pod!.memory).toEqual({ time: '2023-11-14T22:13:30Z', workingSetBytes: 1500n, rssBytes: 600n });
    expect(pod!.cpu).toMatchObject({ usageCoreNanoSeconds: 5n * S });
    expect(pod!['ephemeral-storage']).toMatchObject({ usedBytes: 4096n, inodesUsed: 3n, capacityBytes: 100n * GiB });
  });

  it('lists a pod\'s measured volumes, ephemeral ones first, and counts the ephemeral ones in its ephemeral storage (Go\'s calcEphemeralStorage)', () => {
    const pod = { namespace: 'default', name: 'web', uid: 'u1' };
    const at = (timeMs: number) => ({ timeMs, availableBytes: 40n * GiB, capacityBytes: 100n * GiB, inodes: 1000n, inodesFree: 400n });
    const base = { hostPath: '/p', plugin: 'kubernetes.io/empty-dir' as const, contentVersion: 1 };
    const volumes = podVolumeStats(pod, [
      { volume: { ...base, name: 'scratch', localEphemeral: true }, reading: { ...at(1_700_000_030_000), usedBytes: 1_048_576n, inodesUsed: 2n } },
      { volume: { ...base, name: 'ram', localEphemeral: false }, reading: { ...at(1_700_000_000_000), usedBytes: 9999n, inodesUsed: 9n } },
      {
        volume: { ...base, name: 'data', localEphemeral: false, plugin: 'kubernetes.io/csi', persistent: { claimName: 'data-claim', pvName: 'pv-1', plugin: 'kubernetes.io/csi' } },
        reading: { timeMs: 1_700_000_000_000, usedBytes: 5n, abnormal: false },
      },
    ]);
    const { summary } = buildSummary(input({ volumes: new Map([['u1', volumes]]) }));
    const [web] = summary.pods;
    expect(web!.volume?.map((v) => v.name)).toEqual(['scratch', 'data', 'ram']);
    expect(web!.volume?.[1]).toEqual({
      time: '2023-11-14T22:13:20Z', availableBytes: 0n, capacityBytes: 0n, usedBytes: 5n, inodesFree: 0n, inodes: 0n, inodesUsed: 0n,
      name: 'data', pvcRef: { name: 'data-claim', namespace: 'default' }, volumeHealthStats: { abnormal: false },
    });
    // The logs' 4096 bytes and 3 inodes plus the disk emptyDir's; the tmpfs one and the claim are not counted.
    expect(web!['ephemeral-storage']).toMatchObject({ time: '2023-11-14T22:13:50Z', usedBytes: 4096n + 1_048_576n, inodesUsed: 5n });
    expect(summaryShapeProblems(JSON.parse(summaryJson(summary)))).toEqual([]);
    expect(Object.keys(web!)).toEqual(['podRef', 'startTime', 'containers', 'cpu', 'memory', 'volume', 'ephemeral-storage']);
    expect(cpuAndMemoryOnly(summary).pods[0]!.volume).toBeUndefined();
  });

  it('takes usageNanoCores from the runtime, else from the previous sample, else leaves it out', () => {
    const first = buildSummary(input());
    const [pod] = first.summary.pods;
    expect(pod!.containers.map((c) => c.cpu?.usageNanoCores)).toEqual([undefined, 7n]);
    expect(first.summary.node.cpu?.usageNanoCores).toBeUndefined();
    expect(first.cpuSamples.get(cpuSampleKey.container('c-main'))).toEqual({ timestampNs: T0 + 10n * S, usageCoreNanoSeconds: 4n * S });

    const previousCpu = new Map([
      [cpuSampleKey.container('c-main'), { timestampNs: T0, usageCoreNanoSeconds: 2n * S }],
      [cpuSampleKey.node, { timestampNs: T0, usageCoreNanoSeconds: 30n * S }],
    ]);
    const second = buildSummary(input({ previousCpu })).summary;
    // 2 s of CPU in 10 s: 0.2 cores; the node 20 s in 10 s: 2 cores.
    expect(second.pods[0]!.containers[0]!.cpu?.usageNanoCores).toBe(200_000_000n);
    expect(second.pods[0]!.cpu?.usageNanoCores).toBe(200_000_007n);
    expect(second.node.cpu?.usageNanoCores).toBe(2n * S);
  });

  it('cpuAndMemoryOnly keeps cpu and memory and drops every file system', () => {
    const only = cpuAndMemoryOnly(buildSummary(input()).summary);
    expect(Object.keys(only.node).sort()).toEqual(['cpu', 'memory', 'nodeName', 'startTime', 'systemContainers']);
    expect(Object.keys(only.pods[0]!).sort()).toEqual(['containers', 'cpu', 'memory', 'podRef', 'startTime']);
    expect(Object.keys(only.pods[0]!.containers[0]!).sort()).toEqual(['cpu', 'memory', 'name', 'startTime']);
  });
});
