import { link, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureVolume, type VolumeMeters } from '../../../src/actors/stats/measure-volume.js';
import { ProcHostStats } from '../../../src/adapters/host/host-stats.js';
import type { MountedVolume } from '../../../src/domain/volume-manager/mounted-volumes.js';
import type { CsiVolumePlugin, CsiVolumeUsage } from '../../../src/ports/csi-volumes.js';

const MiB = 1024 * 1024;
const host = new ProcHostStats();
let dir: string;

const volume = (over: Partial<MountedVolume>): MountedVolume => ({
  name: 'v', hostPath: dir, plugin: 'kubernetes.io/empty-dir', localEphemeral: true, contentVersion: 1, ...over,
});
const meters = (over: Partial<VolumeMeters> = {}): VolumeMeters => ({ host, csiVolumeHealth: false, nowMs: () => 1_700_000_000_000, ...over });

/** A CSI plugin that answers NodeGetVolumeStats from a table and records what it was asked. */
class FakeCsi implements Pick<CsiVolumePlugin, 'volumeStats'> {
  readonly asked: [string, string][] = [];
  constructor(private readonly usage: CsiVolumeUsage | undefined) {}
  async volumeStats(podUid: string, dirName: string): Promise<CsiVolumeUsage | undefined> {
    this.asked.push([podUid, dirName]);
    return this.usage;
  }
}
const asPlugin = (fake: FakeCsi) => () => fake as unknown as CsiVolumePlugin;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kts-volume-stats-'));
  // 1 MiB of real blocks, a small file, a subdirectory with a file, a hard link and a symlink.
  await writeFile(join(dir, 'big'), Buffer.alloc(MiB, 7));
  await writeFile(join(dir, 'small'), 'hello');
  await mkdir(join(dir, 'sub'));
  await writeFile(join(dir, 'sub', 'inner'), 'x'.repeat(100));
  await link(join(dir, 'big'), join(dir, 'sub', 'big-again'));
  await symlink('small', join(dir, 'alias'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('measureVolume', () => {
  it('walks an emptyDir for used bytes and inodes (a hard-linked file once) and takes its file system\'s size from statfs', async () => {
    const r = await measureVolume('u1', volume({}), meters());
    const fs = await host.filesystem(dir);
    // The directory, big, small, sub, sub/inner, alias: the second link to big is not counted again.
    expect(r?.inodesUsed).toBe(6n);
    expect(r!.usedBytes!).toBeGreaterThanOrEqual(BigInt(MiB));
    expect(r!.usedBytes!).toBeLessThan(BigInt(2 * MiB));
    expect(r).toMatchObject({ timeMs: 1_700_000_000_000, capacityBytes: fs!.capacityBytes, inodes: fs!.inodes });
    expect(r!.availableBytes!).toBeGreaterThan(0n);
  });

  it.each(['kubernetes.io/configmap', 'kubernetes.io/secret', 'kubernetes.io/downward-api', 'kubernetes.io/projected'] as const)('measures a %s volume by the same walk', async (plugin) => {
    expect((await measureVolume('u1', volume({ plugin }), meters()))?.inodesUsed).toBe(6n);
  });

  it('takes a local PV\'s figures from statfs alone', async () => {
    const fs = await host.filesystem(dir);
    const r = await measureVolume('u1', volume({ plugin: 'kubernetes.io/local-volume', localEphemeral: false }), meters());
    expect(r?.capacityBytes).toBe(fs!.capacityBytes);
    expect(r?.inodesUsed).toBe(fs!.inodes - fs!.inodesFree);
    // The whole file system's use, far more than this directory's.
    expect(r!.usedBytes!).toBeGreaterThan(0n);
  });

  it('reports nothing for a hostPath volume, nor for a directory that is gone', async () => {
    expect(await measureVolume('u1', volume({ plugin: 'kubernetes.io/host-path' }), meters())).toBeNull();
    expect(await measureVolume('u1', volume({ hostPath: join(dir, 'gone') }), meters())).toBeNull();
  });

  it('asks a CSI claim\'s driver under its PV\'s name and an inline volume under its own, and maps bytes and inodes', async () => {
    const csi = new FakeCsi({ bytes: { available: 700, total: 1000, used: 300 }, inodes: { available: 90, total: 100, used: 10 } });
    const persistent = { claimName: 'data', pvName: 'pv-1', plugin: 'kubernetes.io/csi' as const };
    const claim = await measureVolume('u1', volume({ name: 'data', plugin: 'kubernetes.io/csi', localEphemeral: false, persistent }), meters({ csi: asPlugin(csi) }));
    expect(claim).toEqual({ timeMs: 1_700_000_000_000, availableBytes: 700n, capacityBytes: 1000n, usedBytes: 300n, inodesFree: 90n, inodes: 100n, inodesUsed: 10n });
    await measureVolume('u1', volume({ name: 'inline', plugin: 'kubernetes.io/csi', localEphemeral: false }), meters({ csi: asPlugin(csi) }));
    expect(csi.asked).toEqual([['u1', 'pv-1'], ['u1', 'inline']]);
  });

  it('reports a CSI volume\'s condition only with CSIVolumeHealth on, and nothing for a driver without stats or before the plugin exists', async () => {
    const sick = new FakeCsi({ bytes: { available: 1, total: 2, used: 1 }, abnormal: { message: 'disk on fire' } });
    const v = volume({ plugin: 'kubernetes.io/csi', localEphemeral: false });
    expect((await measureVolume('u1', v, meters({ csi: asPlugin(sick) })))?.abnormal).toBeUndefined();
    expect((await measureVolume('u1', v, meters({ csi: asPlugin(sick), csiVolumeHealth: true })))?.abnormal).toBe(true);
    expect((await measureVolume('u1', v, meters({ csi: asPlugin(new FakeCsi({ bytes: { available: 1, total: 2, used: 1 } })), csiVolumeHealth: true })))?.abnormal).toBe(false);
    expect(await measureVolume('u1', v, meters({ csi: asPlugin(new FakeCsi(undefined)) }))).toBeNull();
    expect(await measureVolume('u1', v, meters({ csi: () => undefined }))).toBeNull();
    expect(await measureVolume('u1', v, meters())).toBeNull();
  });
});
