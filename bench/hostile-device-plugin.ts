/**
 * A device plugin that registers, then floods ListAndWatch: lists of `devices` devices, each one
 * differing from the last, written as fast as the stream takes them; 60,000 is about 3 MiB a list,
 * near gRPC's 4 MiB receive limit the kubelet keeps. The kubelet is expected to take the first list
 * and then only the latest of each interval (list-coalescer.ts).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { loadDevicePluginProto } from '../src/adapters/device-plugins/device-plugin-proto.js';
import { linesWith, sleep, type HostileCase } from './hostile-case.js';

const RESOURCE = 'example.com/hostile-flood';

/** Two lists that differ only in the last device's health, so every list written is news. */
function lists(devices: number): [object, object] {
  const id = (i: number) => `hostile-device-${String(i).padStart(8, '0')}-${'x'.repeat(16)}`;
  const list = (lastHealth: string) => ({ devices: Array.from({ length: devices }, (_, i) => ({ ID: id(i), health: i === devices - 1 ? lastHealth : 'Healthy' })) });
  return [list('Healthy'), list('Unhealthy')];
}

function register(kubeletSock: string, endpoint: string): Promise<string | null> {
  const codecs = loadDevicePluginProto().registration.Register;
  const client = new grpc.Client(`unix:${kubeletSock}`, grpc.credentials.createInsecure());
  return new Promise((resolve) => {
    client.makeUnaryRequest(codecs.path, codecs.requestSerialize as (v: object) => Buffer, codecs.responseDeserialize, { version: 'v1beta1', endpoint, resource_name: RESOURCE }, (err) => {
      client.close();
      resolve(err ? err.details : null);
    });
  });
}

export const deviceListFlood = (devices: number): HostileCase => ({
  name: `device plugin: ListAndWatch flooded with ${devices.toLocaleString('en')}-device lists`,
  async attack(k, seconds) {
    const endpoint = `hostile-flood-${devices}.sock`;
    const socket = join(k.devicePluginsDir, endpoint);
    const [a, b] = lists(devices);
    let written = 0;
    let flooding = true;
    const server = new grpc.Server();
    server.addService(loadDevicePluginProto().devicePlugin as unknown as grpc.ServiceDefinition, {
      GetDevicePluginOptions: (_call: unknown, cb: grpc.sendUnaryData<object>) => cb(null, {}),
      ListAndWatch: async (call: grpc.ServerWritableStream<object, object>) => {
        while (flooding && !call.cancelled) {
          // Backpressure: wait for the stream to drain, as a plugin writing as fast as it can would.
          if (!call.write(written++ % 2 === 0 ? a : b)) await new Promise((r) => call.once('drain', r));
        }
        call.end();
      },
    });
    await new Promise<void>((resolve, reject) => server.bindAsync(`unix://${socket}`, grpc.ServerCredentials.createInsecure(), (e) => (e ? reject(e) : resolve())));
    const log = k.logFromNow();
    try {
      const refusal = await register(join(k.devicePluginsDir, 'kubelet.sock'), endpoint);
      if (refusal) throw new Error(`the kubelet refused the registration: ${refusal}`);
      await sleep(seconds * 1000);
    } finally {
      flooding = false;
      server.forceShutdown();
      rmSync(socket, { force: true });
    }
    const lines = log();
    const taken = linesWith(lines, 'State pushed for device plugin').length;
    const flood = linesWith(lines, 'Device plugin sends device lists faster').length > 0;
    return { outcome: flood || taken < written ? 'bounded' : 'answered', detail: `${written} lists sent, ${taken} taken` };
  },
});
