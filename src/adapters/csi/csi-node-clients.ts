/**
 * A registered CSI driver's Node service, as the volume plugin calls it (Go: csi_client.go's
 * csiDriverClient over the csiDrivers store): the driver is looked up in the registry on every
 * use, so one that registers later or moved its socket is found; a connection per endpoint is kept.
 * Every call has Go's csiTimeout, and a failed call's message is worded as Go's gRPC status error.
 */
import * as grpc from '@grpc/grpc-js';
import { unregisteredDriverMessage } from '../../domain/csi/csi-driver.js';
import { KubeletError } from '../../domain/errors.js';
import type { NodeDefinition } from '../../generated/csi/v1/Node.js';
import type { CsiDriverRegistry } from '../../ports/csi-drivers.js';
import { csiCallTimeoutMs, type CsiNodeClients } from './csi-node-client-types.js';
import { loadCsiProto } from './csi-proto.js';
import { grpcErrorText } from './grpc-status-text.js';
import { unixGrpcClient, type UnixGrpcClient } from './unix-grpc-client.js';


/** Codes after which the driver may still be working on the call (Go's isFinalError is false): the volume is in an uncertain state. */
const uncertainCodes: readonly number[] = [grpc.status.CANCELLED, grpc.status.DEADLINE_EXCEEDED, grpc.status.UNAVAILABLE, grpc.status.RESOURCE_EXHAUSTED, grpc.status.ABORTED];

/** Whether a failed call is known to have done nothing (a final gRPC status). */
export function isFinalStatus(error: unknown): boolean {
  const code = (error as Partial<grpc.ServiceError>).code;
  return typeof code === 'number' && !uncertainCodes.includes(code);
}

/** A failed call as the volume plugin reports it: Go's wording, and whether the driver may still be at work. */
function wordedAsGo(error: unknown): KubeletError {
  return new KubeletError('KLT_ERR_VOLUME_MOUNT', grpcErrorText(error), { cause: error, retryable: !isFinalStatus(error) });
}

export function createCsiNodeClients(registry: CsiDriverRegistry, timeoutMs = csiCallTimeoutMs): CsiNodeClients {
  const clients = new Map<string, UnixGrpcClient<NodeDefinition>>();
  return {
    get(driver) {
      const registered = registry.get(driver);
      if (!registered) throw new KubeletError('KLT_ERR_VOLUME_MOUNT', unregisteredDriverMessage(driver));
      let client = clients.get(registered.endpoint);
      if (!client) {
        client = unixGrpcClient(loadCsiProto().node, registered.endpoint, wordedAsGo);
        clients.set(registered.endpoint, client);
      }
      const call = client.call;
      return {
        call,
        capabilities: async () => {
          const answer = await call.NodeGetCapabilities({}, timeoutMs);
          return new Set(answer.capabilities.map((c) => c.rpc?.type).filter((t) => t !== undefined).map(String));
        },
      };
    },
    close() {
      for (const client of clients.values()) client.close();
      clients.clear();
    },
  };
}
