/**
 * A DRA plugin's registration and calls against the lab's DRA test driver (the e2e suite's DRA
 * kubelet plugin, v1.35): what it announces, its registration through the plugin registration
 * machine with the real effects, the client's calls on both services it serves, its deregistration.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createPluginClients } from '../../../src/adapters/csi/plugin-clients.js';
import { createDraDriverRegistry } from '../../../src/adapters/dra/dra-driver-registry.js';
import { createDraPluginClients } from '../../../src/adapters/dra/dra-plugin-clients.js';
import { registerSocket } from '../../support/dra-registration.js';
import { DRA_TEST_DRIVER_NAME, draTestDriverPart, startDraTestDriver, type DraTestDriver } from '../../support/dra-test-driver.js';
import { describeNeeding } from '../../support/real-parts.js';

const CLAIM = { namespace: 'default', uid: 'claim-uid-1', name: 'gpu' };

describeNeeding(draTestDriverPart(), 'DRA registration against the lab\'s DRA test driver', () => {
  const root = mkdtempSync(join(tmpdir(), 'dra-test-driver-'));
  let driver: DraTestDriver;

  beforeAll(async () => {
    driver = await startDraTestDriver(root, 'node-1');
  }, 20_000);

  afterAll(async () => {
    await driver?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('announces a DRAPlugin on its DRA socket, v1 first among its services', async () => {
    expect(await createPluginClients().getInfo(driver.registrationSocket)).toEqual({
      type: 'DRAPlugin', name: DRA_TEST_DRIVER_NAME, endpoint: driver.endpoint, supportedVersions: ['v1.DRAPlugin', 'v1beta1.DRAPlugin', 'v1alpha1.DRAResourceHealth'],
    });
  });

  it('is registered on v1, told so, and taken out again when its socket goes', async () => {
    const r = registerSocket(driver.registrationSocket);
    await vi.waitFor(() => expect(r.state()).toBe('registered'), 10_000);
    expect(r.child.getSnapshot().context.lastError).toBeNull();
    expect(r.draDrivers.list()).toEqual([{ driverName: DRA_TEST_DRIVER_NAME, endpoint: driver.endpoint, service: 'v1.DRAPlugin' }]);
    r.child.send({ type: 'plugin.socket.removed', socketPath: driver.registrationSocket });
    await vi.waitFor(() => expect(r.ended).toEqual([driver.registrationSocket]), 5_000);
    expect(r.draDrivers.list()).toEqual([]);
    r.stop();
  });

  it.each(['v1.DRAPlugin', 'v1beta1.DRAPlugin'] as const)('answers NodeUnprepareResources on %s, and NodePrepareResources with its error naming the driver', async (service) => {
    const registry = createDraDriverRegistry();
    registry.add({ driverName: DRA_TEST_DRIVER_NAME, endpoint: driver.endpoint, service });
    const clients = createDraPluginClients(registry);
    const client = clients.get(DRA_TEST_DRIVER_NAME);
    // A claim it never prepared: nothing to undo.
    expect(await client.nodeUnprepareResources([CLAIM])).toEqual(new Map([[CLAIM.uid, { error: '' }]]));
    // It reads the claim from the API server, which is not there.
    await expect(client.nodePrepareResources([CLAIM])).rejects.toMatchObject({
      code: 'KLT_ERR_DRA_PLUGIN',
      message: expect.stringMatching(new RegExp(`^DRA driver ${DRA_TEST_DRIVER_NAME} at endpoint ${driver.endpoint}: NodePrepareResources: rpc error: code = Unknown desc = .*retrieve claim default/gpu`)),
    });
    // Its log is read from a pipe: the line may come a moment after the answer.
    await vi.waitFor(() => expect(driver.log()).toContain(`method="/k8s.io.kubelet.pkg.apis.dra.${service.split('.')[0]}.DRAPlugin/NodePrepareResources"`), 5_000);
    clients.close();
  }, 30_000);
});
