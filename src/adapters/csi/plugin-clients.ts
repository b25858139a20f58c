/**
 * The plugin manager's gRPC calls (PluginClients): GetInfo and NotifyRegistrationStatus on a
 * registration socket, NodeGetInfo on a CSI driver's endpoint. A client per call, closed after it:
 * these calls are rare (a registration, a retry a second). Deadlines are Go's: GetInfo 1 s after a
 * dial of up to 10 s, NotifyRegistrationStatus 1 s after the same dial, NodeGetInfo 2 min (csiTimeout).
 * A failure is a KubeletError naming the socket, with Go's wording and gRPC's status as Go prints it.
 * An answer over the bounds of plugin-answer-bounds.ts is such a failure.
 */
import type { PluginInfo } from '../../domain/csi/plugin-info.js';
import { KubeletError } from '../../domain/errors.js';
import type { CsiNodeInfo, PluginClients } from '../../ports/plugin-registration.js';
import { csiCallTimeoutMs } from './csi-node-client-types.js';
import { loadCsiProto } from './csi-proto.js';
import { grpcErrorText } from './grpc-status-text.js';
import { checkEntries, MAX_SUPPORTED_VERSIONS, MAX_TOPOLOGY_SEGMENTS } from './plugin-answer-bounds.js';
import { unixGrpcClient, type UnixGrpcClient } from './unix-grpc-client.js';

export const PLUGIN_DIAL_TIMEOUT_MS = 10_000;
export const PLUGIN_CALL_TIMEOUT_MS = 1_000;
export const CSI_TIMEOUT_MS = csiCallTimeoutMs;

async function using<D, T>(client: UnixGrpcClient<D>, call: (c: UnixGrpcClient<D>) => Promise<T>): Promise<T> {
  try {
    return await call(client);
  } finally {
    client.close();
  }
}

export function createPluginClients(): PluginClients {
  const registration = (socketPath: string) => unixGrpcClient(loadCsiProto().registration, socketPath);
  return {
    async getInfo(socketPath): Promise<PluginInfo> {
      try {
        const info = await using(registration(socketPath), (c) => c.call.GetInfo({}, PLUGIN_DIAL_TIMEOUT_MS + PLUGIN_CALL_TIMEOUT_MS));
        checkEntries({ code: 'KLT_ERR_PLUGIN_REGISTRATION', peer: 'the plugin', call: 'GetInfo' }, 'supported versions', info.supported_versions.length, MAX_SUPPORTED_VERSIONS);
        return { type: info.type, name: info.name, endpoint: info.endpoint, supportedVersions: [...info.supported_versions] };
      } catch (err) {
        throw new KubeletError('KLT_ERR_PLUGIN_REGISTRATION', `RegisterPlugin error -- failed to get plugin info using RPC GetInfo at socket ${socketPath}, err: ${grpcErrorText(err)}`, { cause: err, retryable: true });
      }
    },
    async notifyRegistrationStatus(socketPath, status): Promise<void> {
      try {
        await using(registration(socketPath), (c) => c.call.NotifyRegistrationStatus({ plugin_registered: status.registered, error: status.error }, PLUGIN_DIAL_TIMEOUT_MS + PLUGIN_CALL_TIMEOUT_MS));
      } catch (err) {
        const what = status.registered ? 'failed to send registration status' : 'failed to send error';
        throw new KubeletError('KLT_ERR_PLUGIN_REGISTRATION', `RegisterPlugin error -- ${what} at socket ${socketPath}, err: ${grpcErrorText(err)}`, { cause: err, retryable: true });
      }
    },
    async nodeGetInfo(endpoint): Promise<CsiNodeInfo> {
      try {
        const node = unixGrpcClient(loadCsiProto().node, endpoint);
        const answer = await using(node, (c) => c.call.NodeGetInfo({}, CSI_TIMEOUT_MS));
        const segments = answer.accessible_topology?.segments ?? {};
        checkEntries({ code: 'KLT_ERR_PLUGIN_REGISTRATION', peer: 'the driver', call: 'NodeGetInfo' }, 'topology segments', Object.keys(segments).length, MAX_TOPOLOGY_SEGMENTS);
        return { nodeId: answer.node_id, maxVolumesPerNode: Number(answer.max_volumes_per_node), topology: { ...segments } };
      } catch (err) {
        throw new KubeletError('KLT_ERR_PLUGIN_REGISTRATION', `NodeGetInfo on ${endpoint}: ${grpcErrorText(err)}`, { cause: err, retryable: true });
      }
    },
  };
}
