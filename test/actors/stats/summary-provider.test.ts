import { describe, expect, it } from 'vitest';
import { SummaryProvider } from '../../../src/actors/stats/summary-provider.js';
import { FakeCri } from '../../fakes/fake-cri.js';
import { FakeHostStats } from '../../fakes/fake-host-stats.js';

const S = 1_000_000_000n;

async function runningPod(cri: FakeCri) {
  cri.addImage('busybox');
  const config = { metadata: { name: 'web', uid: 'u1', namespace: 'default', attempt: 0 } };
  const sandbox = await cri.runtime.runPodSandbox(config);
  const id = await cri.runtime.createContainer(sandbox, { metadata: { name: 'main', attempt: 0 }, image: { image: 'busybox' } }, config);
  await cri.runtime.startContainer(id);
  return id;
}

/** By default every get reads (no answer reused), so the reading itself is what these tests see. */
function setup(sharing: ConstructorParameters<typeof SummaryProvider>[1] = { maxAgeMs: 0, now: () => 0 }) {
  const cri = new FakeCri();
  const host = new FakeHostStats();
  let connected = true;
  const provider = new SummaryProvider({ cri: () => (connected ? cri : undefined), host, nodeName: () => 'node-1', rootDir: () => '/var/lib/kubelet', podLogsDir: () => '/var/log/pods' }, sharing);
  return { cri, host, provider, disconnect: () => (connected = false) };
}

const count = (calls: readonly string[], name: string) => calls.filter((c) => c === name).length;

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

  it('nodeOnly reads the node and the image file system, and no container, stats or log directory', async () => {
    const { cri, host, provider } = setup();
    const id = await runningPod(cri);
    cri.usage.set(id, { cpuNs: 1n * S, workingSetBytes: 1n });
    await provider.get(false);
    const [callsBefore, hostBefore] = [cri.calls.length, host.calls.length];
    const node = await provider.nodeOnly();
    expect(node.pods).toEqual([]);
    expect(node.node.runtime?.imageFs).toMatchObject({ usedBytes: 1000n, capacityBytes: 100n });
    expect(cri.calls.slice(callsBefore)).toEqual(['imageFsInfo']);
    expect(host.calls.slice(hostBefore).some((c) => c.startsWith('du '))).toBe(false);
    // The containers' CPU samples survive it: the next full read still has a rate.
    cri.usage.set(id, { cpuNs: 1n * S + 1_000_000n, workingSetBytes: 1n });
    host.nowNs += 2n * S;
    expect((await provider.get(false)).pods[0]!.containers[0]!.cpu?.usageNanoCores).toBeGreaterThan(0n);
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

  it('serves 200 concurrent requests with one set of CRI calls (#14)', async () => {
    const { cri, provider } = setup({ maxAgeMs: 1000, now: () => 0 });
    await runningPod(cri);
    cri.calls.length = 0;
    const answers = await Promise.all(Array.from({ length: 200 }, () => provider.get(false)));
    expect(answers.every((a) => a.pods.length === 1)).toBe(true);
    expect(['listPodSandbox', 'listContainers', 'listContainerStats', 'imageFsInfo'].map((c) => count(cri.calls, c))).toEqual([1, 1, 1, 1]);
  });

  it('reuses an answer younger than maxAgeMs and reads again after it (#14)', async () => {
    let now = 0;
    const { cri, provider } = setup({ maxAgeMs: 1000, now: () => now });
    await provider.get(true);
    now = 999;
    await provider.get(true);
    expect(count(cri.calls, 'listContainerStats')).toBe(1);
    now = 1000;
    await provider.get(true);
    expect(count(cri.calls, 'listContainerStats')).toBe(2);
  });

  it('refuses with KLT_ERR_STATS_BUSY past maxWaiting waiting requests, and serves the rest (#14)', async () => {
    const { cri, provider } = setup({ maxAgeMs: 1000, maxWaiting: 3, now: () => 0 });
    const settled = await Promise.allSettled(Array.from({ length: 6 }, () => provider.get(false)));
    // The first starts the read, three wait for it, the last two are refused.
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected']);
    expect(settled[5]).toMatchObject({ reason: { code: 'KLT_ERR_STATS_BUSY', retryable: true } });
    expect(count(cri.calls, 'listContainerStats')).toBe(1);
  });

  it('does not reuse a failed read (#14)', async () => {
    const { cri, provider } = setup({ maxAgeMs: 1000, now: () => 0 });
    cri.failNext('listContainerStats');
    await expect(provider.get(false)).rejects.toMatchObject({ code: 'KLT_ERR_STATS_UNAVAILABLE' });
    expect((await provider.get(false)).node.nodeName).toBe('node-1');
  });
});
