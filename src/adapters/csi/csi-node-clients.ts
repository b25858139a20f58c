/**
 * A registered CSI driver's Node service, as the volume plugin calls it (Go: csi_client.go's
 * csiDriverClient over the csiDrivers store): the driver is looked up in the registry on every
 * use, so one that registers later or moved its socket is found; a connection per driver and
 * endpoint is kept. Every call has Go's csiTimeout, and a failed call's message is worded as Go's
 * gRPC status error, or names the driver and the call when its answer was over the bounds.
 *
 * A driver's node capabilities are asked once per registration and kept until it registers again
 * or leaves. Go asks NodeGetCapabilities before every stage, publish and volume-stats read; a
 * driver's capabilities are fixed by its build, and a new build is a new registration (its
 * registrar's socket is made again).
 */
import * as grpc from '@grpc/grpc-js';
import { unregisteredDriverMessage } from '../../domain/csi/csi-driver.js';
import { KubeletError } from '../../domain/errors.js';
import type { NodeDefinition } from '../../generated/csi/v1/Node.js';
import type { CsiDriverRegistry, RegisteredCsiDriver } from '../../ports/csi-drivers.js';
import { csiCallTimeoutMs, type CsiNodeClients } from './csi-node-client-types.js';
import { loadCsiProto } from './csi-proto.js';
import { grpcErrorText } from './grpc-status-text.js';
import { checkEntries, MAX_NODE_CAPABILITIES, PLUGIN_MAX_ANSWER_BYTES } from './plugin-answer-bounds.js';
import { isOversizedAnswer, unixGrpcClient, type UnixGrpcClient } from './unix-grpc-client.js';


/** Codes after which the driver may still be working on the call (Go's isFinalError is false): the volume is in an uncertain state. */
const uncertainCodes: readonly number[] = [grpc.status.CANCELLED, grpc.status.DEADLINE_EXCEEDED, grpc.status.UNAVAILABLE, grpc.status.RESOURCE_EXHAUSTED, grpc.status.ABORTED];

/** Whether a failed call is known to have done nothing (a final gRPC status). */
export function isFinalStatus(error: unknown): boolean {
  const code = (error as Partial<grpc.ServiceError>).code;
  return typeof code === 'number' && !uncertainCodes.includes(code);
}

/**
 * A failed call as the volume plugin reports it: Go's wording, and whether the driver may still be at
 * work; an answer over the receive limit names the driver and the call.
 */
const failedCall = (driver: string) => (error: unknown, method: string): KubeletError => {
  const message = isOversizedAnswer(error)
    ? `CSI driver ${driver} answered ${method} with more than the ${PLUGIN_MAX_ANSWER_BYTES} bytes taken: ${grpcErrorText(error)}`
    : grpcErrorText(error);
  return new KubeletError('KLT_ERR_VOLUME_MOUNT', message, { cause: error, retryable: !isFinalStatus(error) });
};

export function createCsiNodeClients(registry: CsiDriverRegistry, timeoutMs = csiCallTimeoutMs): CsiNodeClients {
  const clients = new Map<string, UnixGrpcClient<NodeDefinition>>();
  /** Each registration's capabilities (the registry stores a new record per registration), asked or being asked. */
  const capabilities = new WeakMap<RegisteredCsiDriver, Promise<Set<string>>>();

  async function askCapabilities(driver: string, call: UnixGrpcClient<NodeDefinition>['call']): Promise<Set<string>> {
    const answer = await call.NodeGetCapabilities({}, timeoutMs);
    checkEntries({ code: 'KLT_ERR_VOLUME_MOUNT', peer: `CSI driver ${driver}`, call: 'NodeGetCapabilities' }, 'capabilities', answer.capabilities.length, MAX_NODE_CAPABILITIES);
    return new Set(answer.capabilities.map((c) => c.rpc?.type).filter((t) => t !== undefined).map(String));
  }

  return {
    get(driver) {
      const registered = registry.get(driver);
      if (!registered) throw new KubeletError('KLT_ERR_VOLUME_MOUNT', unregisteredDriverMessage(driver));
      // Keyed by both: the errors name the driver, and a driver that moved its socket gets a new connection.
      const key = `${driver}\n${registered.endpoint}`;
      let client = clients.get(key);
      if (!client) {
        client = unixGrpcClient(loadCsiProto().node, registered.endpoint, failedCall(driver));
        clients.set(key, client);
      }
      const call = client.call;
      return {
        call,
        capabilities: () => {
          let asked = capabilities.get(registered);
          if (!asked) {
            asked = askCapabilities(driver, call);
            capabilities.set(registered, asked);
            // A failed answer is not kept: the next use asks again.
            asked.catch(() => capabilities.delete(registered));
          }
          return asked;
        },
      };
    },
    close() {
      for (const client of clients.values()) client.close();
      clients.clear();
    },
  };
}
