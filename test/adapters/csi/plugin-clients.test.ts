/**
 * The plugin manager's gRPC calls against the lab's upstream CSI mock driver: GetInfo and
 * NotifyRegistrationStatus on its registration socket, NodeGetInfo on its CSI endpoint; and the
 * error a socket nobody serves gives.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPluginClients } from '../../../src/adapters/csi/plugin-clients.js';
import { CSI_MOCK_DRIVER_NAME, type CsiMockDriver, csiMockDriverPart, startCsiMockDriver, toldRegistered } from '../../support/csi-mock-driver.js';
import { until } from '../../support/daemon.js';
import { describeNeeding } from '../../support/real-parts.js';

describeNeeding(csiMockDriverPart(), 'plugin clients against the CSI mock driver', () => {
  const root = mkdtempSync(join(tmpdir(), 'plugin-clients-'));
  const registration = join(root, 'plugins_registry', `${CSI_MOCK_DRIVER_NAME}-reg.sock`);
  const endpoint = join(root, 'plugins', CSI_MOCK_DRIVER_NAME, 'csi.sock');
  const clients = createPluginClients();
  let driver: CsiMockDriver;

  beforeAll(async () => {
    driver = await startCsiMockDriver(root);
    await until('the driver\'s sockets', () => existsSync(registration) && existsSync(endpoint), 10_000, () => driver.log());
  }, 20_000);

  afterAll(async () => {
    await driver?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('asks GetInfo: a CSIPlugin, its name, its CSI endpoint and versions', async () => {
    expect(await clients.getInfo(registration)).toEqual({ type: 'CSIPlugin', name: CSI_MOCK_DRIVER_NAME, endpoint, supportedVersions: ['1.0.0'] });
  });

  it('asks NodeGetInfo on the endpoint: the node ID, no limit, no topology', async () => {
    expect(await clients.nodeGetInfo(endpoint)).toEqual({ nodeId: CSI_MOCK_DRIVER_NAME, maxVolumesPerNode: 0, topology: {} });
  });

  it('tells the driver its registration status, which it logs', async () => {
    await clients.notifyRegistrationStatus(registration, { registered: false, error: 'RegisterPlugin error -- test' });
    await until('FAILED in the driver\'s log', () => driver.log().includes('Kubelet plugin registration: FAILED'), 5_000);
    await clients.notifyRegistrationStatus(registration, { registered: true, error: '' });
    await until('registered in the driver\'s log', () => toldRegistered(driver.log()), 5_000);
  });

  it('fails on a socket nobody serves with Go\'s wording, naming the socket', async () => {
    const missing = join(root, 'plugins_registry', 'gone-reg.sock');
    await expect(clients.getInfo(missing)).rejects.toMatchObject({
      code: 'KLT_ERR_PLUGIN_REGISTRATION',
      message: expect.stringMatching(new RegExp(`^RegisterPlugin error -- failed to get plugin info using RPC GetInfo at socket ${missing}, err: rpc error: code = Unavailable desc = `)),
    });
  });
});
