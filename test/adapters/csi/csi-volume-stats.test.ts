/**
 * A CSI volume's stats against a driver of the test's own: the driver's capabilities asked once per
 * registration across stats periods, and answers over the bounds refused naming the driver and the call.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCsiDriverRegistry } from '../../../src/adapters/csi/csi-driver-registry.js';
import { createCsiNodeClients } from '../../../src/adapters/csi/csi-node-clients.js';
import { csiVolumeStats } from '../../../src/adapters/csi/csi-volume-stats.js';
import { MAX_NODE_CAPABILITIES, MAX_VOLUME_USAGE_ENTRIES, PLUGIN_MAX_ANSWER_BYTES } from '../../../src/adapters/csi/plugin-answer-bounds.js';
import { writeVolData } from '../../../src/adapters/csi/vol-data-files.js';
import { podCsiVolumePaths } from '../../../src/domain/csi/csi-paths.js';
import type { CsiDriverStore } from '../../../src/ports/csi-drivers.js';
import { startFakeCsiPlugin, type CsiHandler, type FakeCsiPlugin } from '../../support/fake-csi-plugin.js';

const DRIVER = 'd.example.com';
const POD = 'pod-uid-1';
const VOLUME = 'pv-1';
/** A NodeGetCapabilities entry is 6 bytes on the wire: this many are over the receive limit. */
const OVERSIZED_CAPABILITIES = Math.ceil(PLUGIN_MAX_ANSWER_BYTES / 6) + 1;

const capabilities = (...types: string[]) => ({ capabilities: types.map((type) => ({ rpc: { type } })) });
const usage = (entries: number) => ({ usage: Array.from({ length: entries }, (_, i) => ({ unit: i % 2 ? 'INODES' : 'BYTES', available: 1, total: 2, used: 1 })) });

let root: string;
let driver: FakeCsiPlugin;
let registry: CsiDriverStore;
let clients: ReturnType<typeof createCsiNodeClients>;

async function start(handlers: Record<string, CsiHandler>): Promise<void> {
  root = mkdtempSync(join(tmpdir(), 'kts-csi-stats-'));
  driver = await startFakeCsiPlugin(handlers);
  registry = createCsiDriverRegistry();
  register();
  clients = createCsiNodeClients(registry, 5_000);
  const paths = podCsiVolumePaths(root, POD, VOLUME);
  await writeVolData(paths.dataDir, paths.volDataPath, { specVolID: VOLUME, volumeHandle: 'h1', driverName: DRIVER, nodeName: 'n', attachmentID: 'a', volumeLifecycleMode: 'Persistent' });
}

const register = () => registry.set({ name: DRIVER, endpoint: driver.socketPath, versions: ['1.0.0'], nodeId: 'n', maxVolumesPerNode: 0 });
const stats = () => csiVolumeStats(clients, root, POD, VOLUME);

afterEach(async () => {
  clients?.close();
  await driver?.dispose();
  rmSync(root, { recursive: true, force: true });
});

describe('csiVolumeStats', () => {
  it('asks the driver\'s capabilities once per registration, not at every stats period', async () => {
    await start({ NodeGetCapabilities: () => capabilities('GET_VOLUME_STATS'), NodeGetVolumeStats: () => usage(2) });
    for (let period = 0; period < 3; period++) expect(await stats()).toMatchObject({ bytes: { total: 2 }, inodes: { total: 2 } });
    expect(driver.calls('NodeGetVolumeStats')).toBe(3);
    expect(driver.calls('NodeGetCapabilities')).toBe(1);
    register();
    await stats();
    expect(driver.calls('NodeGetCapabilities')).toBe(2);
  });

  it('asks again after a failed NodeGetCapabilities', async () => {
    let answer = capabilities(...Array.from({ length: MAX_NODE_CAPABILITIES + 1 }, () => 'GET_VOLUME_STATS'));
    await start({ NodeGetCapabilities: () => answer, NodeGetVolumeStats: () => usage(2) });
    await expect(stats()).rejects.toMatchObject({
      code: 'KLT_ERR_VOLUME_MOUNT',
      message: `CSI driver ${DRIVER} answered NodeGetCapabilities with ${MAX_NODE_CAPABILITIES + 1} capabilities, more than the ${MAX_NODE_CAPABILITIES} taken`,
    });
    answer = capabilities('GET_VOLUME_STATS');
    expect(await stats()).toMatchObject({ bytes: { total: 2 } });
    expect(driver.calls('NodeGetCapabilities')).toBe(2);
  });

  it('refuses a NodeGetCapabilities answer over the receive limit, naming the driver and the call', async () => {
    await start({ NodeGetCapabilities: () => capabilities(...Array.from({ length: OVERSIZED_CAPABILITIES }, () => 'GET_VOLUME_STATS')) });
    await expect(stats()).rejects.toMatchObject({
      code: 'KLT_ERR_VOLUME_MOUNT',
      message: expect.stringMatching(new RegExp(`^CSI driver ${DRIVER} answered NodeGetCapabilities with more than the ${PLUGIN_MAX_ANSWER_BYTES} bytes taken: rpc error: code = ResourceExhausted desc = `)),
    });
  });

  it('refuses a NodeGetVolumeStats answer over the receive limit, naming the driver and the call', async () => {
    await start({
      NodeGetCapabilities: () => capabilities('GET_VOLUME_STATS', 'VOLUME_CONDITION'),
      NodeGetVolumeStats: () => ({ usage: [], volume_condition: { abnormal: true, message: 'x'.repeat(PLUGIN_MAX_ANSWER_BYTES) } }),
    });
    await expect(stats()).rejects.toMatchObject({ message: expect.stringMatching(new RegExp(`^CSI driver ${DRIVER} answered NodeGetVolumeStats with more than`)) });
  });

  it('refuses more usage entries than the bound, naming the driver', async () => {
    await start({ NodeGetCapabilities: () => capabilities('GET_VOLUME_STATS'), NodeGetVolumeStats: () => usage(MAX_VOLUME_USAGE_ENTRIES + 1) });
    await expect(stats()).rejects.toMatchObject({
      code: 'KLT_ERR_VOLUME_MOUNT',
      message: `CSI driver ${DRIVER} answered NodeGetVolumeStats with ${MAX_VOLUME_USAGE_ENTRIES + 1} usage entries, more than the ${MAX_VOLUME_USAGE_ENTRIES} taken`,
    });
  });
});
