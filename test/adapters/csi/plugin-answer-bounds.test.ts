/**
 * The plugin manager's calls against a plugin of the test's own that answers over the bounds:
 * GetInfo with too many versions or too many bytes, NodeGetInfo with too many topology segments.
 * Each is refused with an error naming the socket and the call, and the error stays short.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_SUPPORTED_VERSIONS, MAX_TOPOLOGY_SEGMENTS, PLUGIN_MAX_ANSWER_BYTES } from '../../../src/adapters/csi/plugin-answer-bounds.js';
import { createPluginClients } from '../../../src/adapters/csi/plugin-clients.js';
import { startFakeCsiPlugin, type CsiHandler, type FakeCsiPlugin } from '../../support/fake-csi-plugin.js';

/** What an error about an answer may come to: its own text and the socket's path, never the answer. */
const MAX_ERROR_CHARS = 1024;

const info = (versions: string[]) => ({ type: 'CSIPlugin', name: 'd.example.com', endpoint: '', supported_versions: versions });

let plugin: FakeCsiPlugin | undefined;
const start = async (handlers: Record<string, CsiHandler>) => (plugin = await startFakeCsiPlugin(handlers));

afterEach(async () => {
  await plugin?.dispose();
  plugin = undefined;
});

describe('the plugin clients\' bounds on an answer', () => {
  it('take a GetInfo answer within the bounds whole', async () => {
    const { socketPath } = await start({ GetInfo: () => info(Array.from({ length: MAX_SUPPORTED_VERSIONS }, () => '1.0.0')) });
    expect((await createPluginClients().getInfo(socketPath)).supportedVersions).toHaveLength(MAX_SUPPORTED_VERSIONS);
  });

  it('refuse a GetInfo answer listing more versions than the bound, naming the socket', async () => {
    const { socketPath } = await start({ GetInfo: () => info(Array.from({ length: 1_000 }, () => '1.0.0')) });
    const refused = createPluginClients().getInfo(socketPath);
    await expect(refused).rejects.toMatchObject({
      code: 'KLT_ERR_PLUGIN_REGISTRATION',
      message: `RegisterPlugin error -- failed to get plugin info using RPC GetInfo at socket ${socketPath}, err: the plugin answered GetInfo with 1000 supported versions, more than the ${MAX_SUPPORTED_VERSIONS} taken`,
    });
  });

  it('refuse a GetInfo answer over the receive limit with a short error naming the socket and the call', async () => {
    const { socketPath } = await start({ GetInfo: () => info(Array.from({ length: 1_000 }, () => `1.0.0-${'x'.repeat(PLUGIN_MAX_ANSWER_BYTES / 100)}`)) });
    const error = await createPluginClients().getInfo(socketPath).catch((e: Error) => e);
    expect(error).toMatchObject({
      code: 'KLT_ERR_PLUGIN_REGISTRATION',
      message: expect.stringMatching(new RegExp(`^RegisterPlugin error -- failed to get plugin info using RPC GetInfo at socket ${socketPath}, err: rpc error: code = ResourceExhausted desc = Received message larger than max \\(\\d+ vs ${PLUGIN_MAX_ANSWER_BYTES}\\)$`)),
    });
    expect((error as Error).message.length).toBeLessThan(MAX_ERROR_CHARS);
  });

  it('refuse a NodeGetInfo answer with more topology segments than the bound, naming the endpoint', async () => {
    const segments = Object.fromEntries(Array.from({ length: MAX_TOPOLOGY_SEGMENTS + 1 }, (_, i) => [`topology.example.com/k${i}`, 'v']));
    const { socketPath } = await start({ NodeGetInfo: () => ({ node_id: 'n', accessible_topology: { segments } }) });
    await expect(createPluginClients().nodeGetInfo(socketPath)).rejects.toMatchObject({
      code: 'KLT_ERR_PLUGIN_REGISTRATION',
      message: `NodeGetInfo on ${socketPath}: the driver answered NodeGetInfo with ${MAX_TOPOLOGY_SEGMENTS + 1} topology segments, more than the ${MAX_TOPOLOGY_SEGMENTS} taken`,
    });
  });
});
