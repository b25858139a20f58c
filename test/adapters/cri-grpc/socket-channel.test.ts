import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCriProto } from '../../../src/adapters/cri-grpc/proto.js';
import { socketChannel, type CriChannel } from '../../../src/adapters/cri-grpc/socket-channel.js';
import { unaryCall, type UnaryClient } from '../../../src/adapters/cri-grpc/unary-call.js';
import { fakeCriServer, type FakeCriServer } from './fake-cri-server.js';

// A back-off far longer than the test: whatever reconnects within it is not grpc-js's own retry.
const LONG_BACKOFF: grpc.ChannelOptions = { 'grpc.initial_reconnect_backoff_ms': 60_000, 'grpc.max_reconnect_backoff_ms': 60_000 };

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function runtimeServer(): Promise<FakeCriServer> {
  const server = fakeCriServer({ Version: () => ({ version: '0.1.0', runtime_name: 'fake', runtime_version: '1', runtime_api_version: 'v1' }) });
  cleanups.push(() => server.dispose());
  await server.start();
  return server;
}

const version = (client: UnaryClient) => unaryCall(client, loadCriProto().runtimeService.Version, { version: '0.1.0' }, 2_000);

function channelTo(server: FakeCriServer): CriChannel {
  const channel = socketChannel(server.endpoint, server.socketPath, LONG_BACKOFF);
  cleanups.push(() => channel.close());
  return channel;
}

describe('socketChannel', () => {
  it('calls a runtime that came back on a new socket at once, where the backing-off channel fails', async () => {
    const server = await runtimeServer();
    const renewing = channelTo(server);
    const plain = new grpc.Client(server.endpoint, grpc.credentials.createInsecure(), LONG_BACKOFF);
    cleanups.push(() => plain.close());
    await expect(version(renewing.client())).resolves.toMatchObject({ runtime_name: 'fake' });
    await expect(version(plain)).resolves.toMatchObject({ runtime_name: 'fake' });

    await server.stop();
    await expect(version(renewing.client())).rejects.toMatchObject({ code: 'KLT_ERR_CRI_UNAVAILABLE' });
    await expect(version(plain)).rejects.toMatchObject({ code: 'KLT_ERR_CRI_UNAVAILABLE' });
    const beforeReturn = renewing.client();
    expect(renewing.client()).toBe(beforeReturn); // no socket yet: nothing to renew

    await server.start();
    await expect(version(plain)).rejects.toMatchObject({ code: 'KLT_ERR_CRI_UNAVAILABLE' });
    const afterReturn = renewing.client();
    expect(afterReturn).not.toBe(beforeReturn);
    await expect(version(afterReturn)).resolves.toMatchObject({ runtime_name: 'fake' });
    expect(renewing.client()).toBe(afterReturn); // connected: kept
  });

  it('keeps a channel that is not backing off, whatever the socket', async () => {
    const server = await runtimeServer();
    const channel = channelTo(server);
    const first = channel.client();
    await version(first);
    await server.stop();
    await server.start();
    // The connection to the old server is gone but the channel has not failed a connection attempt yet.
    expect(channel.client()).toBe(first);
  });
});
