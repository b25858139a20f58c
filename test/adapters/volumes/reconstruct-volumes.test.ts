/**
 * The CSI volumes found on disk at start, through the volume plugins: read back from their
 * vol_data.json, reported in volumesInUse (the PVs) until a teardown succeeds, torn down through a
 * fake of the CsiVolumePlugin port that records its calls.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createVolumePlugins } from '../../../src/adapters/volumes/volume-plugins.js';
import { systemMounter } from '../../../src/adapters/volumes/mount-table.js';
import { podCsiVolumePaths } from '../../../src/domain/csi/csi-paths.js';
import { encodeVolData, type PodVolData } from '../../../src/domain/csi/vol-data.js';
import type { CsiVolumePlugin } from '../../../src/ports/csi-volumes.js';
import type { VolumePlugins } from '../../../src/ports/volumes.js';
import { tempRoot } from './mount-helpers.js';

const DRIVER = 'csi-mock.lab.k8s.io';
const UNIQUE = `kubernetes.io/csi/${DRIVER}^2`;

class FakeCsi implements Pick<CsiVolumePlugin, 'tearDown' | 'tearDownDevice'> {
  calls: string[] = [];
  /** The driver is not registered: every call fails as Go's does. */
  unregistered = false;
  private check(): void {
    if (this.unregistered) throw new Error(`driver name ${DRIVER} not found in the list of registered CSI drivers`);
  }
  async tearDown(podUid: string, dirName: string) {
    this.calls.push(`tearDown ${podUid} ${dirName}`);
    this.check();
  }
  async tearDownDevice(driverName: string, volumeHandle: string) {
    this.calls.push(`tearDownDevice ${driverName} ${volumeHandle}`);
    this.check();
  }
}

let rootDir: string;
let csi: FakeCsi;
let plugins: VolumePlugins;

const volData = (specVolID: string, mode: PodVolData['volumeLifecycleMode'], volumeHandle = '2'): PodVolData =>
  ({ specVolID, volumeHandle, driverName: DRIVER, nodeName: 'node-a', attachmentID: 'csi-abc', volumeLifecycleMode: mode });

async function leave(podUid: string, dirName: string, content: string | null): Promise<void> {
  const paths = podCsiVolumePaths(rootDir, podUid, dirName);
  await mkdir(paths.mountPath, { recursive: true });
  if (content !== null) await writeFile(paths.volDataPath, content);
}

beforeEach(async () => {
  rootDir = await tempRoot('klt-reconstruct-');
  csi = new FakeCsi();
  const stub = async (): Promise<never> => { throw new Error('not used'); };
  plugins = createVolumePlugins({
    rootDir, mounter: systemMounter(), content: { fetch: stub, write: stub },
    csi: { ...csi, tearDown: (u, d) => csi.tearDown(u, d), tearDownDevice: (d, h) => csi.tearDownDevice(d, h), setUpPersistent: stub, setUpInline: stub, volumeStats: stub },
  });
});
afterEach(async () => {
  await rm(rootDir, { recursive: true, force: true });
});

describe('the CSI volumes found on disk at start', () => {
  it('are read back from vol_data.json; only the PVs are in volumesInUse, and nothing is reported before the scan', async () => {
    await leave('pod-a', 'pv-data', encodeVolData(volData('pv-data', 'Persistent')));
    await leave('pod-a', 'scratch', encodeVolData(volData('scratch', 'Ephemeral', 'csi-0f')));
    await leave('pod-b', 'no-file', null);
    await leave('pod-b', 'broken', '{not json');
    expect(plugins.volumesInUse()).toBeUndefined();
    const found = await plugins.reconstructVolumes();
    expect(found.sort((a, b) => a.dirName.localeCompare(b.dirName))).toEqual([
      { podUid: 'pod-a', dirName: 'pv-data', driverName: DRIVER, volumeHandle: '2', uniqueVolumeName: UNIQUE },
      { podUid: 'pod-a', dirName: 'scratch', driverName: DRIVER, volumeHandle: 'csi-0f' },
    ]);
    expect(plugins.volumesInUse()).toEqual([UNIQUE]);
  });

  it('reports an empty list once a scan found nothing, even when there is no pods directory', async () => {
    expect(await plugins.reconstructVolumes()).toEqual([]);
    expect(plugins.volumesInUse()).toEqual([]);
  });

  it('stay in use while their teardown fails, and leave it once unpublished and unstaged', async () => {
    await leave('pod-a', 'pv-data', encodeVolData(volData('pv-data', 'Persistent')));
    const [volume] = await plugins.reconstructVolumes();
    csi.unregistered = true;
    await expect(plugins.tearDownReconstructedVolume(volume!)).rejects.toThrow('not found in the list of registered CSI drivers');
    expect(plugins.volumesInUse()).toEqual([UNIQUE]);
    csi.unregistered = false;
    await plugins.tearDownReconstructedVolume(volume!);
    expect(csi.calls).toEqual(['tearDown pod-a pv-data', 'tearDown pod-a pv-data', `tearDownDevice ${DRIVER} 2`]);
    expect(plugins.volumesInUse()).toEqual([]);
  });

  it('leave volumesInUse when the pod that still has the volume tears it down itself', async () => {
    await leave('pod-a', 'pv-data', encodeVolData(volData('pv-data', 'Persistent')));
    await plugins.reconstructVolumes();
    await plugins.tearDown('pod-a', 'data', null, { claimName: 'data', pvName: 'pv-data', plugin: 'kubernetes.io/csi' });
    expect(plugins.volumesInUse()).toEqual([]);
  });
});
