/**
 * A CSI driver whose registration socket (a link in the plugin registry to the driver's socket, as
 * node-driver-registrar's would be) answers GetInfo well, then NodeGetInfo with an answer of
 * 100,000 topology segments (about 3 MiB), and NodeGetCapabilities with 100,000 capabilities, the
 * same in every retry. The kubelet's plugin clients take 64 KiB of an answer (plugin-answer-bounds.ts).
 * NodeGetCapabilities is asked only when a CSI volume is mounted; this node mounts none.
 */
import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeCsiPlugin } from '../test/support/fake-csi-plugin.js';
import { linesWith, sleep, type HostileCase } from './hostile-case.js';

const ENTRIES = 100_000;
const DRIVER = 'hostile.csi.example.com';

export const oversizedCsiAnswers: HostileCase = {
  name: `CSI driver: NodeGetInfo answered with ${ENTRIES.toLocaleString('en')} topology segments`,
  async attack(k, seconds) {
    const segments = Object.fromEntries(Array.from({ length: ENTRIES }, (_, i) => [`topology.hostile.example.com/zone-${i}`, `value-${i}`]));
    const capabilities = Array.from({ length: ENTRIES }, () => ({ rpc: { type: 'STAGE_UNSTAGE_VOLUME' } }));
    let endpoint = '';
    const driver = await startFakeCsiPlugin({
      GetInfo: () => ({ type: 'CSIPlugin', name: DRIVER, endpoint, supported_versions: ['1.0.0'] }),
      NotifyRegistrationStatus: () => ({}),
      NodeGetInfo: () => ({ node_id: 'hostile-node', max_volumes_per_node: 0, accessible_topology: { segments } }),
      NodeGetCapabilities: () => ({ capabilities }),
    });
    endpoint = driver.socketPath;
    const link = join(k.pluginsDir, `${DRIVER}-reg.sock`);
    const log = k.logFromNow();
    try {
      symlinkSync(driver.socketPath, link);
      await sleep(seconds * 1000);
    } finally {
      rmSync(link, { force: true });
      await driver.dispose();
    }
    const lines = log();
    const refusals = linesWith(lines, 'RegisterPlugin error').length;
    const registered = linesWith(lines, 'kubernetes.io/csi: Registered CSI driver').length > 0;
    const asked = driver.calls('NodeGetInfo');
    return {
      outcome: registered ? 'answered' : refusals > 0 ? 'refused' : 'bounded',
      detail: `NodeGetInfo asked ${asked}×, ${refusals} refusal${refusals === 1 ? '' : 's'} logged`,
    };
  },
};
