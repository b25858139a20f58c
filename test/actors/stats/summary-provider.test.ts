import { describe, expect, it } from 'vitest';
import { SummaryProvider } from '../../../src/actors/stats/summary-provider.js';
import type { NodeReadings } from '../../../src/domain/stats/node-readings.js';
import type { HostStats } from '../../../src/ports/stats.js';
import { FakeCri } from '../../fakes/fake-cri.js';

const S = 1_000_000_000n;

/** Host readings whose clock and counters a test advances. */
class FakeHostStats implements HostStats {
  nowNs = 1_700_000_000n * S;
  readonly calls: string[] = [];
  fail: Error | null = null;
  async node(rootDir: string): Promise<NodeReadings> {
    this.calls.push(`node ${rootDir}`);
    if (this.fail) throw this.fail;
    const fs = { capacityBytes: 100n, availableBytes: 50n, usedBytes: 50n, inodes: 10n, inodesFree: 5n };
    return {
      timestampNs: this.nowNs, bootTimeNs: 0n, cpuNs: this.nowNs / 2n,
      memory: { totalBytes: 100n, freeBytes: 10n, inactiveFileBytes: 5n, anonBytes: 20n, swapTotalBytes: 0n, swapFreeBytes: 0n },
      pageFaults: 0n, majorPageFaults: 0n, rootFs: fs, maxPid: null, tasks: null,
      kubelet: { cpuNs: 1n, residentBytes: 1n, anonBytes: 1n, minorFaults: 0n, majorFaults: 0n, startTimeNs: 0n },
    };
  }
  async filesystem(path: string) {
    this.calls.push(`filesystem ${path}`);
    return { capacityBytes: 100n, availableBytes: 50n, usedBytes: 50n, inodes: 10n, inodesFree: 5n };
  }
  async directoryUsage(dir: string) {
    this.calls.push(`du ${dir}`);
    return { usedBytes: 8192n, inodesUsed: 2n };
  }
}

async function runningPod(cri: FakeCri) {
  cri.addImage('busybox');
  const config = { metadata: { name: 'web', uid: 'u1', namespace: 'default', attempt: 0 } };
  const sandbox = await cri.runtime.runPodSandbox(config);
  const id = await cri.runtime.createContainer(sandbox, { metadata: { name: 'main', attempt: 0 }, image: { image: 'busybox' } }, config);
  await cri.runtime.startContainer(id);
  return id;
}

function setup() {
  const cri = new FakeCri();
  const host = new FakeHostStats();
  let connected = true;
  const provider = new SummaryProvider({ cri: () => (connected ? cri : undefined), host, nodeName: () => 'node-1', rootDir: () => '/var/lib/kubelet', podLogsDir: () => '/var/log/pods' });
  return { cri, host, provider, disconnect: () => (connected = false) };
}

describe('SummaryProvider', () => {
  it('builds the summary from the runtime and the host, logs from the pod log directory', async () => {
    const { cri, host, provider } = setup();
    const id = await runningPod(cri);
    cri.usage.set(id, { cpuNs: 3n * S, workingSetBytes: 4096n });
    const summary = await provider.get(false);
    expect(summary.node.nodeName).toBe('node-1');
    expect(summary.node.runtime?.imageFs).toMatchObject({ usedBytes: 1000n, inodesUsed: 10n, capacityBytes: 100n });
    expect(summary.pods).toHaveLength(1);
    expect(summary.pods[0]!.containers[0]).toMatchObject({ name: 'main', memory: { workingSetBytes: 4096n }, cpu: { usageCoreNanoSeconds: 3n * S }, logs: { usedBytes: 8192n } });
    expect(host.calls).toContain('du /var/log/pods/default_web_u1/main');
    expect(cri.calls).toEqual(expect.arrayContaining(['listPodSandbox', 'listContainers', 'listContainerStats', 'imageFsInfo']));
  });

  it('computes usageNanoCores from the previous request once there is one', async () => {
    const { cri, host, provider } = setup();
    const id = await runningPod(cri);
    cri.usage.set(id, { cpuNs: 1n * S, workingSetBytes: 1n });
    expect((await provider.get(false)).pods[0]!.containers[0]!.cpu?.usageNanoCores).toBeUndefined();
    // FakeCri stamps stats with its own ticking clock; the rate is over whatever time it says passed.
    cri.usage.set(id, { cpuNs: 1n * S + 1_000_000n, workingSetBytes: 1n });
    host.nowNs += 2n * S;
    const second = await provider.get(false);
    expect(second.pods[0]!.containers[0]!.cpu?.usageNanoCores).toBeGreaterThan(0n);
    expect(second.node.cpu?.usageNanoCores).toBe(S / 2n);
  });

  it('reads no file systems for only_cpu_and_memory', async () => {
    const { cri, host, provider } = setup();
    await runningPod(cri);
    const summary = await provider.get(true);
    expect(summary.node.fs).toBeUndefined();
    expect(cri.calls).not.toContain('imageFsInfo');
    expect(host.calls.filter((c) => c.startsWith('du') || c.startsWith('filesystem'))).toEqual([]);
  });

  it('fails with KLT_ERR_STATS_UNAVAILABLE naming what failed, and recovers with the runtime', async () => {
    const { cri, provider, disconnect } = setup();
    cri.failNext('listContainerStats');
    await expect(provider.get(false)).rejects.toMatchObject({ code: 'KLT_ERR_STATS_UNAVAILABLE', message: 'failed to list pod stats: injected listContainerStats failure' });
    cri.failNext('imageFsInfo');
    await expect(provider.get(false)).rejects.toMatchObject({ message: expect.stringMatching(/^failed to get imageFs stats: /) });
    expect((await provider.get(false)).node.nodeName).toBe('node-1');
    disconnect();
    await expect(provider.get(false)).rejects.toMatchObject({ message: 'failed to list pod stats: the container runtime is not connected yet' });
  });
});
