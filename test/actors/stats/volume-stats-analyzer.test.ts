import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { VolumeStatsAnalyzer } from '../../../src/actors/stats/volume-stats-analyzer.js';
import type { VolumeReading } from '../../../src/domain/stats/volume-stats.js';
import type { MountedVolume, PodMountedVolumes } from '../../../src/domain/volume-manager/mounted-volumes.js';

const PERIOD = 60_000;
const pod = { namespace: 'shop', name: 'web', uid: 'u1' };
const scratch: MountedVolume = { name: 'scratch', hostPath: '/p/scratch', plugin: 'kubernetes.io/empty-dir', localEphemeral: true, contentVersion: 1 };
const cfg: MountedVolume = { name: 'cfg', hostPath: '/p/cfg', plugin: 'kubernetes.io/configmap', localEphemeral: true, contentVersion: 1 };
const data: MountedVolume = {
  name: 'data', hostPath: '/p/data', plugin: 'kubernetes.io/csi', localEphemeral: false, contentVersion: 1,
  persistent: { claimName: 'data-claim', pvName: 'pv-1', plugin: 'kubernetes.io/csi' },
};
const flush = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

function harness(initial: PodMountedVolumes[], failing: string[] = []) {
  const clock = new SimulatedClock();
  const state = { pods: initial };
  const measured: string[] = [];
  const analyzer = new VolumeStatsAnalyzer({
    clock,
    random: { next: () => 0.5 },
    pods: () => state.pods,
    measure: async (_uid, v): Promise<VolumeReading | null> => {
      measured.push(v.name);
      if (failing.includes(v.name)) throw new Error('walk failed');
      return { timeMs: clock.now(), usedBytes: BigInt(measured.length * 1000), inodesUsed: 3n, capacityBytes: 10_000n, availableBytes: 5_000n, inodes: 100n, inodesFree: 90n };
    },
  });
  return { clock, state, measured, analyzer };
}

describe('VolumeStatsAnalyzer', () => {
  it('measures a pod\'s volumes at start, ephemeral ones apart from claims, each with its name and claim', async () => {
    const h = harness([{ pod, volumes: [scratch, data, cfg] }]);
    h.analyzer.start(PERIOD);
    await flush();
    const stats = h.analyzer.podVolumeStats('u1');
    expect(stats?.ephemeral.map((v) => v.name)).toEqual(['cfg', 'scratch']);
    expect(stats?.persistent).toEqual([{
      time: '1970-01-01T00:00:00Z', availableBytes: 5000n, capacityBytes: 10_000n, usedBytes: 2000n, inodesFree: 90n, inodes: 100n, inodesUsed: 3n,
      name: 'data', pvcRef: { name: 'data-claim', namespace: 'shop' },
    }]);
    expect(h.analyzer.podVolumeStats('other')).toBeUndefined();
  });

  it('measures again a period to twice a period after each measurement (here 1.5 periods); API content only after a set-up changed it', async () => {
    const h = harness([{ pod, volumes: [scratch, cfg] }]);
    h.analyzer.start(PERIOD);
    await flush();
    expect(h.measured).toEqual(['scratch', 'cfg']);
    h.clock.increment(1.5 * PERIOD - 1);
    await flush();
    expect(h.measured).toHaveLength(2);
    h.clock.increment(1);
    await flush();
    expect(h.measured).toEqual(['scratch', 'cfg', 'scratch']);
    h.state.pods = [{ pod, volumes: [scratch, { ...cfg, contentVersion: 2 }] }];
    h.clock.increment(1.5 * PERIOD);
    await flush();
    expect(h.measured).toEqual(['scratch', 'cfg', 'scratch', 'scratch', 'cfg']);
  });

  it('leaves out a volume whose measurement failed and keeps the others', async () => {
    const h = harness([{ pod, volumes: [scratch, cfg] }], ['scratch']);
    h.analyzer.start(PERIOD);
    await flush();
    expect(h.analyzer.podVolumeStats('u1')?.ephemeral.map((v) => v.name)).toEqual(['cfg']);
  });

  it('drops a pod\'s stats once the volume manager no longer lists it, and measures a new pod at the next period', async () => {
    const h = harness([{ pod, volumes: [scratch] }]);
    h.analyzer.start(PERIOD);
    await flush();
    h.state.pods = [{ pod: { ...pod, uid: 'u2' }, volumes: [cfg] }];
    h.clock.increment(PERIOD);
    await flush();
    expect(h.analyzer.podVolumeStats('u1')).toBeUndefined();
    expect([...h.analyzer.all().keys()]).toEqual(['u2']);
  });

  it('measures nothing with a period of 0, and nothing more once stopped', async () => {
    const off = harness([{ pod, volumes: [scratch] }]);
    off.analyzer.start(0);
    await flush();
    expect(off.measured).toEqual([]);
    const h = harness([{ pod, volumes: [scratch] }]);
    const stop = h.analyzer.start(PERIOD);
    await flush();
    stop();
    h.clock.increment(10 * PERIOD);
    await flush();
    expect(h.measured).toEqual(['scratch']);
    expect(h.analyzer.all().size).toBe(0);
  });
});
