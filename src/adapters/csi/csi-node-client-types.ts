/**
 * A registered CSI driver's Node service as the volume plugin sees it, and a lazy way to it: the
 * gRPC library and the CSI codecs load on the first call, so a kubelet whose pods have no CSI
 * volume never loads them (its start-up is mostly module loading). The clients themselves are in
 * csi-node-clients.ts.
 */
import { unregisteredDriverMessage } from '../../domain/csi/csi-driver.js';
import { KubeletError } from '../../domain/errors.js';
import type { NodeDefinition } from '../../generated/csi/v1/Node.js';
import type { CsiDriverRegistry } from '../../ports/csi-drivers.js';
import type { UnaryMethods } from './unix-grpc-client.js';

/** Go's csiTimeout: the deadline of every Node call. */
export const csiCallTimeoutMs = 2 * 60_000;

export interface CsiNodeClient {
  /** The Node service's calls; each takes its deadline (csiCallTimeoutMs). */
  readonly call: UnaryMethods<NodeDefinition>;
  capabilities(): Promise<Set<string>>;
}

export interface CsiNodeClients {
  /** The driver's Node client; throws Go's message when the driver is not registered. */
  get(driver: string): CsiNodeClient;
  close(): void;
}

type AnyCall = (request: unknown, timeoutMs: number) => Promise<unknown>;

/** The clients of csi-node-clients.ts, loaded when a driver's Node service is first called. */
export function lazyCsiNodeClients(registry: CsiDriverRegistry): CsiNodeClients {
  let loaded: Promise<CsiNodeClients> | undefined;
  let closed = false;
  const clients = () => (loaded ??= import('./csi-node-clients.js').then((m) => m.createCsiNodeClients(registry)));
  return {
    get(driver) {
      // Refused at once, as the loaded clients refuse it: no module is loaded for a driver that is not there.
      if (!registry.get(driver)) throw new KubeletError('KLT_ERR_VOLUME_MOUNT', unregisteredDriverMessage(driver));
      // cast (both): the loaded client's calls, looked up by the method's name; the names and types are the definition's.
      const call = new Proxy({}, {
        get: (_target, method: string): AnyCall => async (request, timeoutMs) =>
          ((await clients()).get(driver).call as Record<string, AnyCall>)[method]!(request, timeoutMs),
      }) as UnaryMethods<NodeDefinition>;
      return { call, capabilities: async () => (await clients()).get(driver).capabilities() };
    },
    close() {
      if (closed) return;
      closed = true;
      void loaded?.then((c) => c.close());
    },
  };
}
