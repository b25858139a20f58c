/**
 * A CSI driver of a test's own on a unix socket in a temp dir: its Node service and the plugin
 * registration service, answering what the test's handlers return, every call counted. A method
 * without a handler answers UNIMPLEMENTED (grpc-js). The server sends answers of any size, so a
 * test can send one over the kubelet's receive limit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { loadCsiProto } from '../../src/adapters/csi/csi-proto.js';

export type CsiHandler = (request: Record<string, unknown>) => unknown;

export interface FakeCsiPlugin {
  readonly socketPath: string;
  /** How many times each method (`NodeGetCapabilities`, `GetInfo`) was called. */
  calls(method: string): number;
  /** Stops the server and removes the temp dir. */
  dispose(): Promise<void>;
}

export async function startFakeCsiPlugin(handlers: Record<string, CsiHandler>): Promise<FakeCsiPlugin> {
  const dir = mkdtempSync(join(tmpdir(), 'kts-csi-unit-'));
  const socketPath = join(dir, 'csi.sock');
  const counts = new Map<string, number>();
  const implementation = (service: object): grpc.UntypedServiceImplementation => Object.fromEntries(
    Object.keys(service).filter((method) => handlers[method]).map((method) => [method, (call: grpc.ServerUnaryCall<Record<string, unknown>, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      counts.set(method, (counts.get(method) ?? 0) + 1);
      callback(null, handlers[method]!(call.request));
    }]),
  );
  const proto = loadCsiProto();
  const server = new grpc.Server();
  // cast (both): the codecs are grpc-js's method definitions without the descriptors nothing reads.
  server.addService(proto.node as unknown as grpc.ServiceDefinition, implementation(proto.node));
  server.addService(proto.registration as unknown as grpc.ServiceDefinition, implementation(proto.registration));
  await new Promise<void>((resolve, reject) => server.bindAsync(`unix://${socketPath}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
  return {
    socketPath,
    calls: (method) => counts.get(method) ?? 0,
    async dispose() {
      server.forceShutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
