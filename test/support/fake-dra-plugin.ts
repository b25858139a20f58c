/**
 * A DRA driver's kubelet plugin of a test's own on a unix socket in a temp dir: the plugin
 * registration service (GetInfo answers a DRAPlugin of the test's name and supported versions, its
 * endpoint the socket itself; NotifyRegistrationStatus is recorded) and the DRAPlugin service of
 * the versions the test serves, answering what its handlers return (a handler that throws an error
 * with a gRPC `code` fails the call with that status). Every DRAPlugin call is
 * recorded with the service that took it. The server sends answers of any size, so a test can send
 * one over the kubelet's receive limit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { loadCsiProto } from '../../src/adapters/csi/csi-proto.js';
import { draPluginCodecs } from '../../src/adapters/dra/dra-proto.js';
import type { DraPluginService } from '../../src/domain/dra/plugin-services.js';

export type DraHandler = (request: { claims: { namespace: string; uid: string; name: string }[] }) => unknown;

export interface FakeDraPluginOptions {
  name: string;
  supportedVersions: string[];
  /** The DRAPlugin services served, each with its handlers (NodePrepareResources, NodeUnprepareResources). */
  serves: Partial<Record<DraPluginService, Record<string, DraHandler>>>;
  /** Where to listen (a plugin started again on its old socket); a temp dir's by default. */
  socketPath?: string;
}

export interface FakeDraPlugin {
  readonly socketPath: string;
  /** Each DRAPlugin call, as `<service> <method>`. */
  readonly calls: string[];
  /** Each NotifyRegistrationStatus received. */
  readonly statuses: { plugin_registered: boolean; error: string }[];
  dispose(): Promise<void>;
}

export async function startFakeDraPlugin(o: FakeDraPluginOptions): Promise<FakeDraPlugin> {
  const socketPath = o.socketPath ?? join(mkdtempSync(join(tmpdir(), 'kts-dra-unit-')), 'dra.sock');
  const calls: string[] = [];
  const statuses: FakeDraPlugin['statuses'] = [];
  const server = new grpc.Server();
  // cast (all): the codecs are grpc-js's method definitions without the descriptors nothing reads.
  server.addService(loadCsiProto().registration as unknown as grpc.ServiceDefinition, {
    GetInfo: (_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      callback(null, { type: 'DRAPlugin', name: o.name, endpoint: '', supported_versions: o.supportedVersions });
    },
    NotifyRegistrationStatus: (call: grpc.ServerUnaryCall<{ plugin_registered: boolean; error: string }, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      statuses.push({ plugin_registered: call.request.plugin_registered, error: call.request.error });
      callback(null, {});
    },
  });
  for (const [service, handlers] of Object.entries(o.serves) as [DraPluginService, Record<string, DraHandler>][]) {
    server.addService(draPluginCodecs(service) as unknown as grpc.ServiceDefinition, Object.fromEntries(Object.entries(handlers).map(([method, handler]) => [
      method,
      (call: grpc.ServerUnaryCall<Parameters<DraHandler>[0], unknown>, callback: grpc.sendUnaryData<unknown>) => {
        calls.push(`${service} ${method}`);
        try {
          callback(null, handler(call.request));
        } catch (err) {
          callback(err as grpc.ServiceError);
        }
      },
    ])));
  }
  await new Promise<void>((resolve, reject) => server.bindAsync(`unix://${socketPath}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
  return {
    socketPath,
    calls,
    statuses,
    async dispose() {
      server.forceShutdown();
      rmSync(o.socketPath ?? dirname(socketPath), { recursive: true, force: true });
    },
  };
}
